// Package loop is the specification's loop, in one place: analyst →
// analyst_review → programmer → programmer_review → tester, each agent in
// its own tmux pane with its own provider, each answer fed into the next
// prompt. A review that does not start with APPROVED sends the work back
// with the review, up to Options.Rounds reviews per stage.
//
// It keeps a run journal: run again after a crash or Ctrl-C with the same
// task, it goes on where it stopped. Finished steps are read back from the
// journal, and the dispatch that was waiting is resumed from its checkpoint
// (a dispatchstate.State) without sending its prompt again. `handoff-fsm
// run` and examples/three-agents both run it.
package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// Roles are the loop's roles in the order it meets them.
var Roles = []string{"analyst", "analyst_review", "programmer", "programmer_review", "tester"}

// DefaultRounds is how many reviews a stage gets when Options.Rounds is 0.
const DefaultRounds = 2

// Agent is one role's agent: its tmux pane, the provider reading its
// screen, its tmux server and its work folder.
type Agent struct {
	// Pane is where it runs: the pane, its tmux server, and the provider
	// reading it ("" is provider.Default).
	dispatchstate.Pane
	// Workdir is where its response file goes; Options.Workdir if "".
	Workdir string
	// HookDir, when set, is the folder its CLI's turn-end hook writes to
	// (`handoff-fsm hook --dir`, which `handoff-fsm up` wires): the wait
	// decides on the hook's marker as soon as it is written.
	HookDir string
}

// Options configure one run of the loop.
type Options struct {
	// Task is what to build. Required.
	Task string
	// Rounds is how many reviews each stage gets: a review that asks for
	// changes sends the work back, up to this many reviews; the loop goes
	// on with the last revision after that (DefaultRounds if 0).
	Rounds int
	// Agents holds an Agent for each of Roles; roles may share a pane.
	Agents map[string]Agent
	// Workdir is the project folder (response files under
	// <workdir>/.tmp/agent-responses, the archive under <workdir>/.tmp).
	Workdir string
	// Config is each dispatch's (poll, idle grace, timeout, …).
	Config handoff.Config
	// Journal is the run journal's folder. Required.
	Journal string
	// Log gets a line per step and per transition (io.Discard if nil).
	Log io.Writer
	// Logger gets the engine's own messages (none if nil).
	Logger *slog.Logger
	// AfterStep, when set, is called after each finished step.
	AfterStep func(Step)
	// OnPoll, when set, sees every observation (of a wait in this
	// process: not with Service).
	OnPoll func(role string, p fsm.Poll)
	// Service, when set, runs each step as a dispatch of a handoff-fsm
	// service (serve) instead of a wait in this process: the service keeps
	// it, and a run that stopped waits for it again, by the id the journal
	// kept, rather than send it twice. A *serve.Client, or a
	// *serve.Service in this process.
	Service serve.Engine
}

// Verdicts of a review step.
const (
	Approved         = "approved"
	ChangesRequested = "changes requested"
)

// Result is a finished run.
type Result struct {
	// Report is the tester's answer.
	Report string
	// Steps are every step in order, those read back from the journal
	// too, and last the step that failed, if one did (Step.Failed).
	Steps []Step
}

// Run runs the loop (or goes on with the one its journal holds) and
// returns the steps and the tester's report. An error from a step names
// it; the journal keeps what was done, so running it again goes on there.
func Run(ctx context.Context, o Options) (*Result, error) {
	if strings.TrimSpace(o.Task) == "" {
		return nil, errors.New("loop: a task is required")
	}
	if o.Journal == "" {
		return nil, errors.New("loop: a journal folder is required")
	}
	for _, r := range Roles {
		if _, ok := o.Agents[r]; !ok {
			return nil, fmt.Errorf("loop: no agent for role %s (want all of %s)", r, strings.Join(Roles, ", "))
		}
	}
	if o.Rounds <= 0 {
		o.Rounds = DefaultRounds
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	workdir, err := filepath.Abs(o.Workdir)
	if err != nil {
		return nil, err
	}
	o.Workdir = workdir
	j, err := openJournal(o.Journal, o.Task, o.Rounds, o.Log)
	if err != nil {
		return nil, err
	}
	r := &runner{o: o, j: j}
	report, err := Flow{Task: o.Task, Rounds: o.Rounds, Exhausted: exhausted(o.Log),
		Ask: func(role, prompt string, review bool) (string, error) { return r.ask(ctx, role, prompt, review) },
	}.Run()
	if err != nil {
		return r.result(""), err
	}
	if err := j.close(); err != nil {
		return r.result(report), err
	}
	return r.result(report), nil
}

// The prompts of the loop's steps.
func AnalystPrompt(task string) string {
	return "Analyse this task and write a plan a programmer can follow:\n\n" + task
}

func ProgrammerPrompt(analysis string) string {
	return "Implement this plan. Summarise what you changed and how to test it.\n\n" + analysis
}

func TesterPrompt(code string) string {
	return "Test this change and report what passed and what failed.\n\n" + code
}

func ReviewPrompt(work string) string {
	return "Review this work. Start your answer with APPROVED, or with CHANGES REQUESTED and what to change.\n\n" + work
}

func RevisePrompt(review, work string) string {
	return "Your reviewer asked for changes. Revise your work.\n\nReview:\n" + review + "\n\nYour work:\n" + work
}

// IsApproved reports whether a review's first line starts with APPROVED
// (any case).
func IsApproved(review string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(review), "\n")
	return strings.HasPrefix(strings.ToUpper(strings.TrimSpace(first)), "APPROVED")
}

type runner struct {
	o      Options
	j      *journal
	n      int   // steps asked so far in this run
	failed *Step // the step that failed
}

func (r *runner) result(report string) *Result {
	res := &Result{Report: report, Steps: append([]Step(nil), r.j.steps...)}
	if r.failed != nil {
		res.Steps = append(res.Steps, *r.failed)
	}
	return res
}

// ask sends step r.n+1 to role's agent and waits for its answer, or reads
// it back from the journal when an earlier run finished it. A review step
// gets a verdict.
func (r *runner) ask(ctx context.Context, role, prompt string, review bool) (string, error) {
	r.n++
	n := r.n
	if s, ok := r.j.done(n); ok {
		if s.Role != role {
			return "", fmt.Errorf("journal step %d is %s, the loop asks %s: the journal is from another run", n, s.Role, role)
		}
		fmt.Fprintf(r.o.Log, "step %d %s: done in an earlier run (%s)\n", n, role, s.Outcome())
		return s.Response, nil
	}
	a := r.o.Agents[role]
	prov := a.ProviderName()
	workdir := a.Workdir
	if workdir == "" {
		workdir = r.o.Workdir
	}
	began := time.Now()
	var res fsm.Result
	var err error
	if r.o.Service != nil {
		res, err = r.askService(ctx, n, role, prompt, a, prov, workdir)
	} else {
		res, err = r.askHere(ctx, n, role, prompt, a, prov, workdir, began)
	}
	if err != nil {
		failed := "error"
		if o, ok := handoff.FailureOf(err); ok {
			failed = o.Name
		}
		if ctx.Err() != nil {
			failed = "interrupted"
		}
		r.failed = &Step{N: n, Role: role, At: time.Now().UTC(), Elapsed: time.Since(began).Round(time.Millisecond), Failed: failed}
		return "", fmt.Errorf("step %d %s (pane %s): %w", n, role, a.Target, err)
	}
	s := Step{N: n, Role: role, Source: string(res.Source), Response: res.Content,
		Archived: res.ArchivedPath, At: time.Now().UTC(), Elapsed: time.Since(began).Round(time.Millisecond)}
	if review {
		s.Verdict = ChangesRequested
		if IsApproved(res.Content) {
			s.Verdict = Approved
		}
	}
	if err := r.j.finish(s); err != nil {
		return "", err
	}
	fmt.Fprintf(r.o.Log, "step %d %s %s: %s\n", n, role, elapsed(s.Elapsed), s.Outcome())
	if r.o.AfterStep != nil {
		r.o.AfterStep(s)
	}
	return res.Content, nil
}

// askHere runs step n as a wait in this process, resumed from the
// journal's checkpoint when an earlier run stopped while it waited.
func (r *runner) askHere(ctx context.Context, n int, role, prompt string, a Agent, prov, workdir string, began time.Time) (fsm.Result, error) {
	// The dispatch is kept while it waits as a persisted dispatch
	// (dispatchstate) named by its step: the pane, the role, the settings
	// and the engine's checkpoint.
	st := &dispatchstate.State{Version: dispatchstate.Version, ID: strconv.Itoa(n), Pane: a.Pane,
		History: tmuxdriver.DefaultHistory, TmuxTimeout: tmuxdriver.DefaultCallTimeout.String(),
		Role: role, Workdir: workdir, Config: r.o.Config}
	st.Provider = prov
	// The journal keeps the state without the prompt (rewritten at every
	// poll); the dispatch sends it.
	save := st.Saver(r.j.inFlightPath())
	run := *st
	run.Prompt = prompt
	h := dispatchstate.Hooks{
		Options: func(opts *fsm.Options) {
			opts.Logger = r.o.Logger
			opts.Observer = func(e fsm.Entry) {
				fmt.Fprintf(r.o.Log, "step %d %s %s: %s → %s (%s)\n", n, role, elapsed(time.Since(began)), e.From, e.To, e.Event)
			}
			opts.OnCheckpoint = save
			if r.o.OnPoll != nil {
				opts.OnPoll = func(p fsm.Poll) { r.o.OnPoll(role, p) }
			}
		},
		// A watch of the response file (and of the turn marker beside it,
		// which Codex's notify hook writes) makes the wait look at once
		// rather than at its next poll; without it the wait polls as usual.
		WatchFile: true,
	}
	// The agent's own turn-end hook, when up wired one, is its Stop marker
	// (Claude Code's Stop, Gemini CLI's AfterAgent, Codex's notify).
	if a.HookDir != "" {
		h.Wake.HookMarker = hookmark.Path(a.HookDir, hookmark.Stopped)
	}
	if f, ok := r.j.inFlight(n, role); ok {
		// The previous run died while this dispatch waited: the wait goes
		// on without sending again.
		fmt.Fprintf(r.o.Log, "step %d %s: resuming the wait in pane %s (the prompt was sent before)\n", n, role, a.Target)
		run.Wait = f.Wait
	} else {
		fmt.Fprintf(r.o.Log, "step %d %s: sending to pane %s (%s)\n", n, role, a.Target, prov)
	}
	res, err := dispatchstate.Run(ctx, &run, h)
	if _, final := handoff.FailureOf(err); final && ctx.Err() == nil {
		// The dispatch is over: there is no wait to resume. The next run
		// sends the step again (to the agent `up` restarted, say); its
		// checkpoint is kept beside the journal.
		r.j.setAside(n)
	}
	return res, err
}

func elapsed(d time.Duration) string {
	return d.Round(100 * time.Millisecond).String()
}

// Summary writes a line per step: its number, role, outcome, time and
// where its answer is archived.
func (r *Result) Summary(w io.Writer) {
	for _, s := range r.Steps {
		where := s.Archived
		if where == "" {
			where = "(not archived)"
		}
		fmt.Fprintf(w, "%3d  %-18s %-30s %8s  %s\n", s.N, s.Role, s.Outcome(), elapsed(s.Elapsed), where)
	}
}
