package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/handoff-fsm/handoff-fsm/loop"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/team"
)

// journal is a run journal the board shows, and the team file whose run
// it is ("" for one given by its folder).
type journal struct {
	dir, teamFile string
}

// journals are the run journals the board knows: each team's
// (<workdir>/.tmp/handoff-run, as `handoff-fsm run` keeps it), each one of
// Options.Journals, and the earlier runs moved aside beside them
// (<dir>-<stamp>), newest first.
func (b *Board) journals() []journal {
	var base []journal
	for _, f := range b.o.Teams {
		t, err := team.Load(f)
		if err != nil {
			continue
		}
		base = append(base, journal{filepath.Join(t.Workdir, ".tmp", "handoff-run"), f})
	}
	for _, d := range b.o.Journals {
		base = append(base, journal{filepath.Clean(d), ""})
	}
	var out []journal
	for _, j := range base {
		aside, _ := filepath.Glob(j.dir + "-2*")
		sort.Sort(sort.Reverse(sort.StringSlice(aside)))
		for _, d := range append([]string{j.dir}, aside...) {
			if _, err := os.Stat(filepath.Join(d, "run.json")); err == nil &&
				!slices.ContainsFunc(out, func(o journal) bool { return o.dir == d }) {
				out = append(out, journal{d, j.teamFile})
			}
		}
	}
	return out
}

// runKey names a journal in the board's URLs without its path.
func runKey(dir string) string {
	h := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(h[:6])
}

// RunSummary is a run in GET /board/runs.
type RunSummary struct {
	Key      string     `json:"key"`
	Dir      string     `json:"dir"`
	Team     string     `json:"team,omitempty"`
	Task     string     `json:"task"`
	Started  time.Time  `json:"started,omitzero"`
	Finished *time.Time `json:"finished,omitempty"`
	Steps    int        `json:"steps"`
	// Next is the role of the step in flight ("" when none is).
	Next  string `json:"next,omitempty"`
	Error string `json:"error,omitempty"`
}

// runs serves GET /board/runs: the runs the board knows (files only).
func (b *Board) runs(w http.ResponseWriter, r *http.Request) {
	out := []RunSummary{}
	for _, j := range b.journals() {
		s := RunSummary{Key: runKey(j.dir), Dir: j.dir, Team: j.teamFile}
		v, err := loop.ReadRun(j.dir)
		if err != nil {
			s.Error = err.Error()
		} else {
			s.Task, s.Started, s.Finished, s.Steps = v.Task, v.Started, v.Finished, len(v.Steps)
			if v.Next != nil {
				s.Next = v.Next.Role
			}
		}
		out = append(out, s)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// RunPage is GET /board/runs/{key}: the run, step by step.
type RunPage struct {
	Key  string `json:"key"`
	Team string `json:"team,omitempty"`
	*loop.RunView
}

func (b *Board) run(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	for _, j := range b.journals() {
		if runKey(j.dir) != key {
			continue
		}
		v, err := loop.ReadRun(j.dir)
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, serve.APIError{Error: err.Error()})
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, RunPage{Key: key, Team: j.teamFile, RunView: v})
		return
	}
	writeJSON(w, http.StatusNotFound, serve.APIError{Error: "no run " + key + " (the board knows the runs of serve --board-team and --board-journal)"})
}

// AgentHealth is a team's agent as `handoff-fsm status --team` says it.
type AgentHealth struct {
	Role     string `json:"role"`
	Pane     string `json:"pane,omitempty"`
	Provider string `json:"provider"`
	Workdir  string `json:"workdir"`
	// Process is "pid N", "exited (status N)", "exited (killed by signal
	// N)", "exited" or "not started".
	Process string `json:"process"`
	Running bool   `json:"running"`
	Status  string `json:"status,omitempty"`
}

// TeamHealth is a team in GET /board/teams.
type TeamHealth struct {
	File    string        `json:"file"`
	Socket  string        `json:"socket"`
	Session string        `json:"session"`
	Workdir string        `json:"workdir"`
	Agents  []AgentHealth `json:"agents"`
	Error   string        `json:"error,omitempty"`
}

// teams serves GET /board/teams: each team's agents and their health
// (team.Status: a look at each agent's pane), read when a page asks.
func (b *Board) teams(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	out := []TeamHealth{}
	for _, f := range b.o.Teams {
		th := TeamHealth{File: f, Agents: []AgentHealth{}}
		t, err := team.Load(f)
		if err != nil {
			th.Error = err.Error()
			out = append(out, th)
			continue
		}
		th.Socket, th.Session, th.Workdir = t.Socket, t.Session, t.Workdir
		members, err := team.Status(ctx, t)
		if err != nil {
			th.Error = err.Error()
		}
		for _, m := range members {
			th.Agents = append(th.Agents, health(m))
		}
		out = append(out, th)
	}
	writeJSON(w, http.StatusOK, map[string]any{"teams": out})
}

// health is what status --team prints of m.
func health(m team.Member) AgentHealth {
	a := AgentHealth{Role: m.Role, Pane: m.Pane, Provider: m.Provider, Workdir: m.Workdir, Status: string(m.Status)}
	if m.Demo {
		a.Provider = "codex" // the simulated agent draws Codex's screens
	}
	switch {
	case m.Pane == "":
		a.Process = "not started"
	case m.Dead && m.Signal > 0:
		a.Process = fmt.Sprintf("exited (killed by signal %d)", m.Signal)
	case m.Dead && m.ExitStatus >= 0:
		a.Process = fmt.Sprintf("exited (status %d)", m.ExitStatus)
	case m.Dead:
		a.Process = "exited"
	default:
		a.Process, a.Running = fmt.Sprintf("pid %d", m.PID), true
	}
	if !a.Running {
		a.Status = ""
	}
	return a
}
