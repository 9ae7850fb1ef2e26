package dispatchstate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

func validState() *dispatchstate.State {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	return &dispatchstate.State{Version: dispatchstate.Version, Pane: dispatchstate.Pane{Target: "%3", Socket: "agents", Provider: "codex"}, History: 200,
		TmuxTimeout: "5s", Role: "analyst", Workdir: "/work/proj", Config: handoff.DefaultConfig(),
		Wait: &fsm.Checkpoint{
			Core: fsm.Snapshot{State: handoff.Working, DispatchedAt: t0, LastStatus: "processing", LastAt: t0.Add(4 * time.Second), Polls: 3},
			Journal: []fsm.Entry{{At: t0.Add(2 * time.Second), From: handoff.AwaitingStart, To: handoff.Working,
				Event: handoff.EventActive, Status: "processing"}},
			ArchiveDir: "/work/proj/.tmp/run-20260304T050607.000Z", ArchiveSeq: 1,
			Pane: &handoff.PaneIdentity{Server: "/tmp/tmux-1000/agents", ServerPID: 100, ServerStarted: "2026-03-04T05:00:00Z",
				Pane: "%3", PID: 101, Started: "59963 ticks after boot"},
		}}
}

func stateJSON(t testing.TB, st *dispatchstate.State) string {
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStateFileRoundTripsAndIsWrittenAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	st := validState()
	if err := st.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := dispatchstate.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if stateJSON(t, got) != stateJSON(t, st) {
		t.Fatalf("round trip:\n%s\n%s", stateJSON(t, got), stateJSON(t, st))
	}
	// Rewrites leave no temporary files behind.
	for i := range 5 {
		st.History = 200 + i
		if err := st.Write(path); err != nil {
			t.Fatal(err)
		}
		if got, err := dispatchstate.Read(path); err != nil || got.History != st.History {
			t.Fatalf("write %d: read back %+v, %v", i, got, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("folder holds %v", entries)
	}
	// A finished one.
	st.Finished = &dispatchstate.Finished{Exit: 5, Error: "analyst: no response file after 1m0s",
		Report: trace.Report{Outcome: "failed", Error: "no_response_file", Transitions: []trace.Transition{}}}
	if _, err := dispatchstate.Parse([]byte(stateJSON(t, st))); err != nil {
		t.Fatal(err)
	}
	// The fields an owner adds stay out of a send --state file.
	if b, _ := validState().Marshal(); strings.Contains(string(b), "created") || strings.Contains(string(b), "prompt") {
		t.Fatalf("optional fields written when unset:\n%s", b)
	}
}

// Rewrite with a spare swaps it with the state file: the state file holds
// the new state, the spare the one before, and nothing else is left in the
// folder; the first write (no state file yet) makes the state file alone.
func TestARewriteSwapsTheSpareWithTheStateFile(t *testing.T) {
	dir := t.TempDir()
	path, spare := filepath.Join(dir, "s.json"), filepath.Join(dir, ".s.json.spare")
	st := validState()
	for i := range 6 {
		st.History = 100 + i
		if err := st.Rewrite(path, spare); err != nil {
			t.Fatal(err)
		}
		if got, err := dispatchstate.Read(path); err != nil || got.History != st.History {
			t.Fatalf("write %d: read back %+v, %v", i, got, err)
		}
		entries, _ := os.ReadDir(dir)
		if i == 0 {
			if len(entries) != 1 {
				t.Fatalf("after the first write the folder holds %v", entries)
			}
			continue
		}
		if len(entries) != 2 {
			t.Fatalf("write %d: the folder holds %v", i, entries)
		}
		if prev, err := dispatchstate.Read(spare); err != nil || prev.History != st.History-1 {
			t.Fatalf("write %d: the spare holds %+v, %v; want the state before", i, prev, err)
		}
	}
	// A shorter state over a longer spare leaves no tail of the longer.
	st.Prompt = strings.Repeat("long ", 200)
	if err := st.Rewrite(path, spare); err != nil {
		t.Fatal(err)
	}
	st.Prompt = ""
	if err := st.Rewrite(path, spare); err != nil {
		t.Fatal(err)
	}
	if got, err := dispatchstate.Read(path); err != nil || got.Prompt != "" {
		t.Fatalf("read back %+v, %v", got, err)
	}
}

// A state file written before the config had one JSON form (durations as
// Go duration strings, the later knobs absent) still reads, as the same
// config.
func TestStateFilesWithTheOlderConfigFormStillRead(t *testing.T) {
	b := stateJSON(t, validState())
	from := strings.Index(b, `"config":{`)
	to := from + strings.Index(b[from:], "}") + 1
	old := b[:from] + `"config":{"poll":"2s","idle_grace":"30s","response_timeout":"30m0s","strict":true,` +
		`"max_response_bytes":8388608,"max_poll_failures":3,"max_answers":3}` + b[to:]
	st, err := dispatchstate.Parse([]byte(old))
	if err != nil {
		t.Fatalf("%v\n%s", err, old)
	}
	if st.Config != handoff.DefaultConfig() {
		t.Errorf("config %+v, want the defaults", st.Config)
	}
}

// A malformed state file gets a message naming the field.
func TestMalformedStateFilesNameTheField(t *testing.T) {
	for _, tc := range []struct {
		field  string
		mutate func(*dispatchstate.State)
		raw    string // used instead when set
	}{
		{"version", func(s *dispatchstate.State) { s.Version = 9 }, ""},
		{"target", func(s *dispatchstate.State) { s.Target = "" }, ""},
		{"socket_path", func(s *dispatchstate.State) { s.SocketPath = "/tmp/x" }, ""},
		{"provider", func(s *dispatchstate.State) { s.Provider = "nope" }, ""},
		{"tmux_timeout", func(s *dispatchstate.State) { s.TmuxTimeout = "soon" }, ""},
		{"workdir", func(s *dispatchstate.State) { s.Workdir = "rel/dir" }, ""},
		{"role", func(s *dispatchstate.State) { s.Role = "../x" }, ""},
		{"prompt", func(s *dispatchstate.State) { s.Prompt = "hi\x1b[201~" }, ""},
		{"config.poll", nil, `{"version":1,"config":{"poll":"soon"}}`},
		{"config.strict", nil, `{"version":1,"config":{"strict":"yes"}}`},
		{"config.colour", nil, `{"version":1,"config":{"colour":"blue"}}`},
		{"config.idle_grace", func(s *dispatchstate.State) { s.Config.IdleGrace = -time.Second }, ""},
		{"config.max_poll_failures", func(s *dispatchstate.State) { s.Config.MaxPollFailures = 0 }, ""},
		{"wait", func(s *dispatchstate.State) { s.Wait = nil }, ""},
		{"wait.archive_dir", func(s *dispatchstate.State) { s.Wait.ArchiveDir = "" }, ""},
		{"wait.archive_seq", func(s *dispatchstate.State) { s.Wait.ArchiveSeq = -1 }, ""},
		{"wait.core", func(s *dispatchstate.State) { s.Wait.Core.State = "Sleeping" }, ""},
		{"wait.core", func(s *dispatchstate.State) { s.Wait.Core.DispatchedAt = time.Time{} }, ""},
		{"wait.core.state", func(s *dispatchstate.State) {
			s.Wait.Core.State, s.Wait.Core.End = handoff.Done, handoff.EventFileReady
		}, ""},
		{"wait.pane.server", func(s *dispatchstate.State) { s.Wait.Pane.Server = "" }, ""},
		{"wait.pane.pid", func(s *dispatchstate.State) { s.Wait.Pane.PID = 0 }, ""},
		{"wait.pane.started", func(s *dispatchstate.State) { s.Wait.Pane.Started = "" }, ""},
		{"wait.pane.server_pid", nil, `{"version":1,"wait":{"pane":{"server_pid":"x"}}}`},
		{"finished.exit", func(s *dispatchstate.State) {
			s.Finished = &dispatchstate.Finished{Exit: 42, Report: trace.Report{Outcome: "done"}}
		}, ""},
		{"finished.exit", func(s *dispatchstate.State) {
			s.Finished = &dispatchstate.Finished{Exit: 0, Report: trace.Report{Outcome: dispatchstate.OutcomeCancelled}}
		}, ""},
		{"finished.error", func(s *dispatchstate.State) {
			s.Finished = &dispatchstate.Finished{Exit: 1, Report: trace.Report{Outcome: dispatchstate.OutcomeError}}
		}, ""},
		{"finished.report.outcome", func(s *dispatchstate.State) {
			s.Finished = &dispatchstate.Finished{Exit: 0, Report: trace.Report{Outcome: "meh"}}
		}, ""},
		{"finished.report.error", func(s *dispatchstate.State) {
			s.Finished = &dispatchstate.Finished{Exit: 4, Report: trace.Report{Outcome: "failed", Error: "gremlins"}}
		}, ""},
		{"history", nil, `{"version":1,"history":"lots"}`},
		{"wait.core.polls", nil, `{"version":1,"wait":{"core":{"polls":"three"}}}`},
		{"colour", nil, `{"version":1,"colour":"blue"}`},
		{"created", nil, `{"version":1,"created":"yesterday"}`},
	} {
		raw := tc.raw
		if raw == "" {
			st := validState()
			tc.mutate(st)
			raw = stateJSON(t, st)
		}
		_, err := dispatchstate.Parse([]byte(raw))
		if !errors.Is(err, dispatchstate.ErrMalformed) || !strings.Contains(err.Error(), `field "`+tc.field+`"`) {
			t.Errorf("%s: %v; want an error naming field %q", raw, err, tc.field)
		}
	}
	for _, raw := range []string{"", "{", `{"version":1}{"version":1}`, "[]"} {
		if _, err := dispatchstate.Parse([]byte(raw)); !errors.Is(err, dispatchstate.ErrMalformed) {
			t.Errorf("%q: %v", raw, err)
		}
	}
}

// What a process that finds a state does with it: an accepted dispatch is
// sent, one whose paste was cut short is not sent again, a waiting one is
// resumed, a finished one reported.
func TestNextFollowsTheDispatchsProgress(t *testing.T) {
	st := validState()
	st.Wait, st.Prompt, st.ID = nil, "Summarise the design", "d1"
	if err := st.Validate(); err != nil || st.Next() != dispatchstate.Send {
		t.Fatalf("accepted: %v, next %v", err, st.Next())
	}
	st.SendStarted = time.Now()
	if err := st.Validate(); err != nil || st.Next() != dispatchstate.Unsure {
		t.Fatalf("pasting: %v, next %v", err, st.Next())
	}
	st.Wait = validState().Wait
	if err := st.Validate(); err != nil || st.Next() != dispatchstate.Resume {
		t.Fatalf("waiting: %v, next %v", err, st.Next())
	}
	st.Finished = dispatchstate.InterruptedWhileSending(time.Now())
	if err := st.Validate(); err != nil || st.Next() != dispatchstate.Report {
		t.Fatalf("finished: %v, next %v", err, st.Next())
	}
	if st.Finished.Err() == nil || st.Finished.Exit != dispatchstate.ExitOther {
		t.Fatalf("interrupted while sending: %+v", st.Finished)
	}
}

// The recorded ending of each kind of wait: the table's outcome and exit
// code; a pane gone before the first poll is a terminal error; a wait that
// could not decide is an error; a cancelled context records nothing.
func TestFinishedOfRecordsTheOutcome(t *testing.T) {
	now := time.Now()
	t0 := now.Add(-time.Minute)
	done := fsm.Result{Content: "the answer", Source: fsm.SourceFile, DispatchedAt: t0, Elapsed: 3 * time.Second, Polls: 2, ArchivedPath: "/a/001-analyst.md"}
	f := dispatchstate.FinishedOf(done, nil, now)
	if f.Exit != 0 || f.Report.Outcome != "done" || f.Report.Content != "the answer" || f.ArchivedPath != "/a/001-analyst.md" || f.Err() != nil {
		t.Fatalf("done: %+v", f)
	}
	noFile := &handoff.WaitError{Kind: handoff.ErrNoResponseFile, Role: "analyst"}
	if f := dispatchstate.FinishedOf(fsm.Result{Polls: 9}, noFile, now); f.Exit != 5 || !errors.Is(f.Err(), handoff.ErrNoResponseFile) {
		t.Fatalf("no file: %+v", f)
	}
	gone := fmt.Errorf("send prompt to analyst: %w", tmuxdriver.ErrServerNotRunning)
	if f := dispatchstate.FinishedOf(fsm.Result{}, gone, now); f.Exit != 4 || f.Report.Error != "terminal_error" {
		t.Fatalf("gone: %+v", f)
	}
	other := errors.New("analyst: unusable response file")
	if f := dispatchstate.FinishedOf(fsm.Result{}, other, now); f.Exit != 1 || f.Report.Outcome != dispatchstate.OutcomeError || f.Error == "" {
		t.Fatalf("other: %+v", f)
	}
	if f := dispatchstate.FinishedOf(fsm.Result{}, context.Canceled, now); f != nil {
		t.Fatalf("cancelled: %+v", f)
	}
	for _, f := range []*dispatchstate.Finished{dispatchstate.FinishedOf(done, nil, now), dispatchstate.FinishedOf(fsm.Result{}, other, now)} {
		st := validState()
		st.Finished = f
		if _, err := dispatchstate.Parse([]byte(stateJSON(t, st))); err != nil {
			t.Fatalf("a recorded ending does not read back: %v", err)
		}
	}
}

// The endings before the wait's first look have the outcome the table
// gives them: a pane, agent or tmux server gone is a terminal error (exit 4),
// a busy agent a refusal (exit 8), both with a report and no transition;
// tmux missing from the machine is neither (exit 1, no report).
func TestEndingsBeforeTheFirstLookHaveTheirOutcome(t *testing.T) {
	busy := &fsm.BusyError{Role: "analyst", Status: handoff.StatusProcessing}
	cases := []struct {
		err  error
		exit int
		kind string // the report's error; "" for no report
	}{
		{tmuxdriver.ErrServerNotRunning, 4, "terminal_error"},
		{tmuxdriver.ErrTargetNotFound, 4, "terminal_error"},
		{tmuxdriver.ErrPaneDead, 4, "terminal_error"},
		{tmuxdriver.ErrAgentExited, 4, "terminal_error"},
		{fmt.Errorf("analyst: before sending: %w: %w", handoff.ErrTerminalError, tmuxdriver.ErrPaneDead), 4, "terminal_error"},
		{busy, 8, "agent_busy"},
		{tmuxdriver.ErrTmuxNotFound, dispatchstate.ExitOther, ""},
		{errors.New("analyst: response slot busy"), dispatchstate.ExitOther, ""},
	}
	for _, c := range cases {
		err := fmt.Errorf("send prompt to analyst: %w", c.err)
		if got := dispatchstate.ExitOf(fsm.Result{}, err); got != c.exit {
			t.Errorf("%v: exit %d, want %d", err, got, c.exit)
		}
		rep, ok := dispatchstate.ReportOf(fsm.Result{}, err)
		switch {
		case c.kind == "" && ok:
			t.Errorf("%v: a report %+v, want none", err, rep)
		case c.kind != "" && (!ok || rep.Outcome != "failed" || rep.Error != c.kind || rep.Transitions == nil || len(rep.Transitions) != 0):
			t.Errorf("%v: report %+v (%v), want failed %s with no transition", err, rep, ok, c.kind)
		}
	}
}

// The state file parser never panics, and what it accepts it writes back
// to the same thing.
func FuzzParse(f *testing.F) {
	st := validState()
	f.Add([]byte(stateJSON(f, st)))
	st.Finished = &dispatchstate.Finished{Exit: 0, Report: trace.Report{Outcome: "done", Source: "file", Content: "hi"}}
	f.Add([]byte(stateJSON(f, st)))
	f.Add([]byte(`{"version":1,"wait":{"core":{"state":"IdleGrace"}}}`))
	st = validState()
	st.Wait, st.Prompt, st.ID, st.Created = nil, "hello", "d1", time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	f.Add([]byte(stateJSON(f, st)))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := dispatchstate.Parse(b)
		if err != nil {
			if !errors.Is(err, dispatchstate.ErrMalformed) {
				t.Fatalf("error not wrapping ErrMalformed: %v", err)
			}
			return
		}
		again, err := dispatchstate.Parse([]byte(stateJSON(t, st)))
		if err != nil {
			t.Fatalf("accepted %q but not its rewrite: %v", b, err)
		}
		if stateJSON(t, again) != stateJSON(t, st) {
			t.Fatalf("rewrite differs:\n%s\n%s", stateJSON(t, again), stateJSON(t, st))
		}
	})
}

// A dispatch the service (or the Temporal worker) runs pastes like `send`:
// with the pause before Enter its provider needs.
func TestPaneOptionsCarryTheProvidersPauseBeforeEnter(t *testing.T) {
	for _, name := range provider.Names() {
		st := validState()
		st.Provider = name
		o, err := st.PaneOptions()
		if err != nil {
			t.Fatal(err)
		}
		if want := provider.EnterDelay(name); o.EnterDelay != want {
			t.Errorf("%s: enter delay %v, want the provider's %v", name, o.EnterDelay, want)
		}
	}
	st := validState()
	st.Provider = "qwen"
	if o, _ := st.PaneOptions(); o.EnterDelay == 0 {
		t.Fatal("qwen's pane options have no pause before Enter")
	}
}
