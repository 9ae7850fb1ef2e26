// Command three-agents runs the specification's loop on the public API:
// analyst → analyst_review → programmer → programmer_review → tester, each
// agent in its own tmux pane with its own provider, each response fed into
// the next prompt. A review that does not start with APPROVED sends the work
// back, up to --rounds times. It keeps a run journal and, run again after a
// crash or Ctrl-C, goes on where it stopped: finished steps are read back
// from the journal, and the dispatch that was waiting is resumed from its
// checkpoint without sending its prompt again.
//
//	three-agents --socket agents --workdir ~/proj --task "Add a --verbose flag" \
//	  --pane analyst=%1 --pane analyst_review=%2 --pane programmer=%3,claude \
//	  --pane programmer_review=%4 --pane tester=%5
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// roles in the order the loop meets them.
var order = []string{"analyst", "analyst_review", "programmer", "programmer_review", "tester"}

// pane is one agent: its tmux target, the provider reading its screen, and
// its tmux server's socket name ("" for --socket).
type pane struct{ target, provider, socket string }

// options configure one run of the loop.
type options struct {
	socket  string
	workdir string
	task    string
	rounds  int
	panes   map[string]pane
	config  handoff.Config
	journal string // folder of the run journal
	log     io.Writer
	// afterStep, when set, is called after each finished step (tests).
	afterStep func(n int, role string)
	// onPoll, when set, sees every observation (tests).
	onPoll func(role string, p fsm.Poll)
}

func main() {
	var o options
	panes := paneFlag{}
	flag.StringVar(&o.socket, "socket", "", "tmux socket name (tmux -L) of the agents' server; default: the default server")
	flag.StringVar(&o.workdir, "workdir", ".", "the project folder (response files under <workdir>/.tmp/agent-responses)")
	flag.StringVar(&o.task, "task", "", "what to build (required)")
	flag.IntVar(&o.rounds, "rounds", 2, "reviews per stage: a review that asks for changes sends the work back, up to this many times")
	flag.StringVar(&o.journal, "journal", "", "run journal folder; default <workdir>/.tmp/three-agents")
	flag.Var(panes, "pane", "role=target[,provider[,socket]] for each of the five roles (provider: codex or claude, default codex; socket: the pane's tmux server, default --socket); roles may share a pane")
	poll := flag.Duration("poll", handoff.DefaultPoll, "poll interval")
	grace := flag.Duration("idle-grace", handoff.DefaultIdleGrace, "idle grace")
	timeout := flag.Duration("timeout", handoff.DefaultResponseTimeout, "response timeout per dispatch")
	flag.Parse()
	o.panes, o.log = panes, os.Stderr
	o.config = handoff.DefaultConfig()
	o.config.Poll, o.config.IdleGrace, o.config.ResponseTimeout = *poll, *grace, *timeout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	result, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "three-agents:", err)
		os.Exit(1)
	}
	fmt.Println(result)
}

// paneFlag collects --pane role=target[,provider[,socket]].
type paneFlag map[string]pane

func (f paneFlag) String() string { return fmt.Sprint(map[string]pane(f)) }

func (f paneFlag) Set(s string) error {
	role, rest, ok := strings.Cut(s, "=")
	if !ok || rest == "" {
		return errors.New("want role=target[,provider[,socket]]")
	}
	target, rest, _ := strings.Cut(rest, ",")
	prov, socket, _ := strings.Cut(rest, ",")
	if prov == "" {
		prov = provider.Default
	}
	f[role] = pane{target, prov, socket}
	return nil
}

// run runs the loop and returns the tester's report.
func run(ctx context.Context, o options) (string, error) {
	if o.task == "" {
		return "", errors.New("--task is required")
	}
	for _, r := range order {
		if _, ok := o.panes[r]; !ok {
			return "", fmt.Errorf("no --pane for role %s (want all of %s)", r, strings.Join(order, ", "))
		}
	}
	if o.journal == "" {
		o.journal = filepath.Join(o.workdir, ".tmp", "three-agents")
	}
	j, err := openJournal(o.journal)
	if err != nil {
		return "", err
	}
	d := &dispatcher{o: o, j: j}

	analysis, err := d.reviewed(ctx, "analyst", "analyst_review",
		"Analyse this task and write a plan a programmer can follow:\n\n"+o.task)
	if err != nil {
		return "", err
	}
	code, err := d.reviewed(ctx, "programmer", "programmer_review",
		"Implement this plan. Summarise what you changed and how to test it.\n\n"+analysis)
	if err != nil {
		return "", err
	}
	return d.ask(ctx, "tester", "Test this change and report what passed and what failed.\n\n"+code)
}

// reviewed asks role, then reviewer; a review that is not APPROVED sends
// the work back with the review, up to o.rounds reviews.
func (d *dispatcher) reviewed(ctx context.Context, role, reviewer, prompt string) (string, error) {
	work, err := d.ask(ctx, role, prompt)
	if err != nil {
		return "", err
	}
	for round := 1; ; round++ {
		review, err := d.ask(ctx, reviewer, "Review this work. Start your answer with APPROVED, or with CHANGES REQUESTED and what to change.\n\n"+work)
		if err != nil {
			return "", err
		}
		if approved(review) || round >= d.o.rounds {
			return work, nil
		}
		work, err = d.ask(ctx, role, "Your reviewer asked for changes. Revise your work.\n\nReview:\n"+review+"\n\nYour work:\n"+work)
		if err != nil {
			return "", err
		}
	}
}

// approved reports whether a review's first line approves.
func approved(review string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(review), "\n")
	return strings.HasPrefix(strings.ToUpper(strings.TrimSpace(first)), "APPROVED")
}

// dispatcher sends each step to its role's pane, or reads it back from the
// journal when an earlier run finished it.
type dispatcher struct {
	o options
	j *journal
	n int // steps asked so far in this run
}

func (d *dispatcher) ask(ctx context.Context, role, prompt string) (string, error) {
	d.n++
	if s, ok := d.j.done(d.n); ok {
		if s.Role != role {
			return "", fmt.Errorf("journal step %d is %s, the loop asks %s: the journal is from another run", d.n, s.Role, role)
		}
		return s.Response, nil
	}
	p := d.o.panes[role]
	socket := p.socket
	if socket == "" {
		socket = d.o.socket
	}
	workdir, err := filepath.Abs(d.o.workdir)
	if err != nil {
		return "", err
	}
	// The dispatch is kept while it waits as a persisted dispatch
	// (dispatchstate) named by its step: the pane, the role, the settings
	// and the engine's checkpoint.
	st := &dispatchstate.State{Version: dispatchstate.Version, ID: strconv.Itoa(d.n), Target: p.target, Socket: socket,
		Provider: p.provider, History: tmuxdriver.DefaultHistory, TmuxTimeout: tmuxdriver.DefaultCallTimeout.String(),
		Role: role, Workdir: workdir, Config: dispatchstate.ConfigOf(d.o.config)}
	term, err := st.Pane(nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", role, err)
	}
	opts := fsm.Options{
		Config: d.o.config, Role: role, Workdir: workdir,
		Logger: slog.New(slog.NewTextHandler(d.o.log, nil)),
		Observer: func(e fsm.Entry) {
			fmt.Fprintf(d.o.log, "step %d %s: %s → %s (%s)\n", d.n, role, e.From, e.To, e.Event)
		},
		OnCheckpoint: st.Saver(d.j.inFlightPath()),
	}
	if d.o.onPoll != nil {
		opts.OnPoll = func(p fsm.Poll) { d.o.onPoll(role, p) }
	}
	if f, ok := d.j.inFlight(d.n, role); ok {
		// The previous run died while this dispatch waited: SendAndWait
		// goes on waiting without sending again.
		fmt.Fprintf(d.o.log, "step %d %s: resuming the wait\n", d.n, role)
		opts.Resume = f.Wait
	} else {
		fmt.Fprintf(d.o.log, "step %d %s: dispatching to %s (%s)\n", d.n, role, p.target, p.provider)
	}
	res, err := fsm.SendAndWait(ctx, term, term, prompt, opts)
	if err != nil {
		return "", fmt.Errorf("step %d %s: %w", d.n, role, err)
	}
	if err := d.j.finish(step{N: d.n, Role: role, Source: string(res.Source), Response: res.Content,
		Archived: res.ArchivedPath, At: time.Now().UTC()}); err != nil {
		return "", err
	}
	if d.o.afterStep != nil {
		d.o.afterStep(d.n, role)
	}
	return res.Content, nil
}

// step is one finished dispatch in the run journal.
type step struct {
	N        int       `json:"n"`
	Role     string    `json:"role"`
	Source   string    `json:"source"`
	Response string    `json:"response"`
	Archived string    `json:"archived,omitempty"`
	At       time.Time `json:"at"`
}

// journal is the run's memory: steps.jsonl (one finished step per line)
// and inflight.json (the waiting dispatch, a dispatchstate.State whose ID
// is its step).
type journal struct {
	dir   string
	steps []step
}

func openJournal(dir string) (*journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &journal{dir: dir}
	f, err := os.Open(filepath.Join(dir, "steps.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		var s step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("journal %s line %d: %w", f.Name(), line, err)
		}
		j.steps = append(j.steps, s)
	}
	return j, sc.Err()
}

func (j *journal) done(n int) (step, bool) {
	if n <= len(j.steps) {
		return j.steps[n-1], true
	}
	return step{}, false
}

func (j *journal) inFlightPath() string { return filepath.Join(j.dir, "inflight.json") }

// inFlight is the dispatch of step n that was waiting when the run stopped.
func (j *journal) inFlight(n int, role string) (*dispatchstate.State, bool) {
	st, err := dispatchstate.Read(j.inFlightPath())
	if err != nil || st.ID != strconv.Itoa(n) || st.Role != role || st.Next() != dispatchstate.Resume {
		return nil, false
	}
	return st, true
}

// finish appends a finished step and forgets the in-flight checkpoint.
func (j *journal) finish(s step) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(j.dir, "steps.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	if err := errors.Join(werr, serr, f.Close()); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.steps = append(j.steps, s)
	if err := os.Remove(filepath.Join(j.dir, "inflight.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
