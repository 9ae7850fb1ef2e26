// Package loop is the specification's loop, in one place: analyst →
// analyst_review → programmer → programmer_review → tester, each agent in
// its own tmux pane with its own provider, each answer fed into the next
// prompt. A review that does not start with APPROVED sends the work back
// with the review, up to Options.Rounds reviews per stage.
//
// It keeps a run journal: run again after a crash or Ctrl-C with the same
// task, it goes on where it stopped. Finished steps are read back from the
// journal, and the dispatch that was waiting is waited for again (resumed
// from its checkpoint) without sending its prompt again. Each step is a
// dispatch of one engine (serve.Engine): a service's, or the one the run
// keeps in its journal folder, with the same code either way. `handoff-fsm
// run` and examples/three-agents both run it.
package loop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/serve"
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
	// Service, when set, is the engine each step is a dispatch of: a
	// handoff-fsm service (a *serve.Client, or a *serve.Service in this
	// process), which keeps it. When nil, the run keeps an engine of its
	// own in the journal's folder (a *serve.Service on it, for as long as
	// the run lasts). Either way a run that stopped waits for the step's
	// dispatch again, by the id the journal kept, rather than send it
	// twice.
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
	r := &runner{o: o, j: j, eng: o.Service}
	if r.eng == nil {
		svc, err := serve.New(serve.Options{StateDir: j.dir, Events: true, Logger: o.Logger, OnPoll: o.onPoll()})
		if err != nil {
			return nil, fmt.Errorf("loop: the run's engine: %w", err)
		}
		// Closed when the run returns: a wait still running stops where it
		// is, kept in its state file for the next run.
		defer svc.Close()
		r.eng, r.here = svc, true
	}
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
	o   Options
	j   *journal
	eng serve.Engine
	// here: eng is the run's own, kept in the journal's folder.
	here   bool
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
	workdir, err := filepath.Abs(a.Workdir)
	if a.Workdir == "" {
		workdir = r.o.Workdir
	}
	if err != nil {
		return "", err
	}
	began := time.Now()
	res, err := r.dispatch(ctx, n, role, prompt, a, workdir)
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

// onPoll is o.OnPoll as the service's (serve.Options.OnPoll).
func (o Options) onPoll() func(id, role string, p fsm.Poll) {
	if o.OnPoll == nil {
		return nil
	}
	return func(_, role string, p fsm.Poll) { o.OnPoll(role, p) }
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
