package fsm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
	"github.com/handoff-fsm/handoff-fsm/panelock"
)

// paneAgent is an agent in a pane that says which pane it is: it shows
// the statuses of busy (one per look) before any prompt arrives, then
// works for work looks after each prompt and writes answer (never, with
// answer ""), then is idle.
type paneAgent struct {
	mu     sync.Mutex
	id     handoff.PaneIdentity
	path   string
	busy   []handoff.Status
	work   int
	answer string
	looks  int // since the last prompt
	calls  int // every look
	sent   []string
}

func newPaneAgent(path, answer string, busy ...handoff.Status) *paneAgent {
	return &paneAgent{path: path, answer: answer, busy: busy, work: 1,
		id: handoff.PaneIdentity{Server: "/tmp/tmux-test/" + fmt.Sprint(time.Now().UnixNano()), ServerPID: 10,
			ServerStarted: "2026-03-04T05:06:07Z", Pane: "%3", PID: 11, Started: "42 ticks after boot"}}
}

func (a *paneAgent) Identity(context.Context) (handoff.PaneIdentity, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.id, nil
}

func (a *paneAgent) Status(context.Context) (handoff.Status, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if len(a.busy) > 0 {
		st := a.busy[0]
		a.busy = a.busy[1:]
		return st, nil
	}
	if len(a.sent) == 0 {
		return handoff.StatusIdle, nil
	}
	if a.looks++; a.looks <= a.work {
		return handoff.StatusProcessing, nil
	}
	if a.looks == a.work+1 && a.answer != "" {
		if err := os.WriteFile(a.path, []byte(a.answer), 0o644); err != nil {
			return "", err
		}
	}
	return handoff.StatusIdle, nil
}

func (a *paneAgent) LastOutput(context.Context) (string, error) { return "", nil }

func (a *paneAgent) Send(_ context.Context, text string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sent = append(a.sent, text)
	a.looks = 0
	return nil
}

func (a *paneAgent) prompts() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.sent)
}

func paneOpts(work, dir string, cfg handoff.Config) fsm.Options {
	return fsm.Options{Config: cfg, Role: "analyst", Workdir: work, Clock: vclock.New(t0), Logger: quiet(), PaneDir: dir}
}

func quickConfig() handoff.Config {
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = time.Second, 5*time.Second, time.Minute
	return cfg
}

// An agent that works (or waits for the user) when a dispatch is about to
// paste is not pasted into: with no busy wait the dispatch fails at once,
// sending nothing; the error is ErrAgentBusy and says what the agent showed.
func TestNoPasteIntoABusyAgent(t *testing.T) {
	for _, st := range []handoff.Status{handoff.StatusProcessing, handoff.StatusWaitingUserAnswer} {
		work, p, _ := setup(t)
		a := newPaneAgent(p, "answer", st)
		cfg := quickConfig()
		cfg.BusyWait = 0
		_, err := fsm.SendAndWait(context.Background(), a, a, "second task", paneOpts(work, t.TempDir(), cfg))
		var be *fsm.BusyError
		if !errors.Is(err, handoff.ErrAgentBusy) || !errors.As(err, &be) || be.Status != st || a.prompts() != 0 {
			t.Fatalf("%s: %v, %d prompts sent; want ErrAgentBusy naming the status, nothing sent", st, err, a.prompts())
		}
		if o, ok := handoff.FailureOf(err); !ok || o.Name != "agent_busy" || o.Exit != 8 {
			t.Fatalf("%s: the table's ending is %+v", st, o)
		}
		if !strings.Contains(err.Error(), string(st)+" since") || !strings.Contains(err.Error(), "nothing was sent") {
			t.Fatalf("message %q does not say the agent is busy, since when, and that nothing was sent", err)
		}
	}
}

// Within the busy wait, the dispatch pastes once the agent shows a ready
// prompt twice in a row, and gets its answer.
func TestADispatchWaitsForABusyAgentThenSends(t *testing.T) {
	work, p, _ := setup(t)
	busy, idle := handoff.StatusProcessing, handoff.StatusIdle
	a := newPaneAgent(p, "my answer", busy, busy, idle, busy, idle)
	res, err := fsm.SendAndWait(context.Background(), a, a, "task", paneOpts(work, t.TempDir(), quickConfig()))
	if err != nil || res.Content != "my answer" || a.prompts() != 1 {
		t.Fatalf("%q, %v, %d prompts: want the answer after one prompt", res.Content, err, a.prompts())
	}
	// The queue opt-out pastes into the busy agent at once.
	work2, p2, _ := setup(t)
	q := newPaneAgent(p2, "queued answer", busy)
	cfg := quickConfig()
	cfg.QueueWhenBusy = true
	res, err = fsm.SendAndWait(context.Background(), q, q, "task", paneOpts(work2, t.TempDir(), cfg))
	if err != nil || res.Content != "queued answer" {
		t.Fatalf("QueueWhenBusy: %q, %v", res.Content, err)
	}
}

// A dispatch that times out leaves the pane marked busy with it; the next
// dispatch to the pane, finding the agent still busy, says so; once a later
// dispatch sees the agent ready the mark is gone.
func TestATimedOutDispatchIsNotForgotten(t *testing.T) {
	work, p, _ := setup(t)
	dir := t.TempDir()
	a := newPaneAgent(p, "", handoff.StatusIdle)
	a.work = 1 << 30 // works on the first prompt for ever
	cfg := quickConfig()
	cfg.ResponseTimeout = 10 * time.Second
	_, err := fsm.SendAndWait(context.Background(), a, a, "FIRST task alpha\nmore", paneOpts(work, dir, cfg))
	if !errors.Is(err, handoff.ErrTimeout) {
		t.Fatalf("first dispatch: %v, want a timeout", err)
	}
	m := panelock.TimedOutOn(dir, a.id)
	if m == nil || m.Role != "analyst" || m.PromptHead != "FIRST task alpha" || m.PID != os.Getpid() ||
		!m.TimedOutAt.Equal(m.Started.Add(10*time.Second)) {
		t.Fatalf("marker %+v: want the timed-out dispatch's role, prompt head, times and pid", m)
	}

	cfg.BusyWait = 3 * time.Second
	_, err = fsm.SendAndWait(context.Background(), a, a, "SECOND task beta", paneOpts(work, dir, cfg))
	var be *fsm.BusyError
	if !errors.As(err, &be) || be.TimedOut == nil || !be.Since.Equal(m.Started) || a.prompts() != 1 ||
		!strings.Contains(err.Error(), "still working on the timed-out dispatch of role analyst") ||
		!strings.Contains(err.Error(), "FIRST task alpha") {
		t.Fatalf("second dispatch: %v (%d prompts); want ErrAgentBusy naming the timed-out dispatch, busy since it was sent", err, a.prompts())
	}
	if panelock.TimedOutOn(dir, a.id) == nil {
		t.Fatal("the mark went away while the agent still worked")
	}

	// The agent finishes (idle): the next dispatch sends, and the mark is gone.
	a.mu.Lock()
	a.work, a.answer, a.sent = 1, "third answer", nil
	a.mu.Unlock()
	res, err := fsm.SendAndWait(context.Background(), a, a, "THIRD", paneOpts(work, dir, cfg))
	if err != nil || res.Content != "third answer" {
		t.Fatalf("third dispatch: %q, %v", res.Content, err)
	}
	if panelock.TimedOutOn(dir, a.id) != nil {
		t.Fatal("the mark stayed after the agent was seen ready")
	}
}

// One dispatch per pane: a second dispatch to the same pane for another
// role is refused at once, naming the holder; with WaitSlot it waits.
func TestOneDispatchPerPane(t *testing.T) {
	work, p, _ := setup(t)
	dir := t.TempDir()
	first := newGated(p, "first answer")
	shared := newPaneAgent(p, "")
	ident := paneGated{first, shared.id}
	done := make(chan error, 1)
	go func() {
		// The spec's 30 min timeout: the first stays in flight until its gate opens.
		o := paneOpts(work, dir, handoff.DefaultConfig())
		o.Clock = pacedClock{vclock.New(t0)}
		_, err := fsm.SendAndWait(context.Background(), ident, ident, "one", o)
		done <- err
	}()
	<-first.started

	tp, _ := handoff.ResponsePath(work, "tester")
	second := paneGated{newGated(tp, "second answer"), shared.id}
	o := paneOpts(work, dir, quickConfig())
	o.Role = "tester"
	_, err := fsm.SendAndWait(context.Background(), second, second, "two", o)
	var pb *panelock.PaneBusyError
	if !errors.Is(err, panelock.ErrPaneBusy) || !errors.As(err, &pb) || pb.Holder.Role != "analyst" ||
		pb.Holder.PID != os.Getpid() || second.sent != 0 || !strings.Contains(err.Error(), "role analyst") {
		t.Fatalf("second dispatch: %v (sent %d), want ErrPaneBusy naming the analyst dispatch", err, second.sent)
	}
	waiting := make(chan error, 1)
	go func() {
		o.WaitSlot = true
		_, err := fsm.SendAndWait(context.Background(), second, second, "two", o)
		waiting <- err
	}()
	time.Sleep(100 * time.Millisecond)
	second.mu.Lock()
	if second.sent != 0 {
		t.Fatal("the waiting dispatch pasted while the pane was held")
	}
	second.mu.Unlock()
	close(second.gate) // it answers at once once it has the pane
	close(first.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-waiting; err != nil {
		t.Fatalf("waiting dispatch: %v", err)
	}
}

// paneGated is a gated agent in a pane that says which it is.
type paneGated struct {
	*gated
	id handoff.PaneIdentity
}

func (g paneGated) Identity(context.Context) (handoff.PaneIdentity, error) { return g.id, nil }

// A resumed wait whose pane is not the one the prompt went to ends at once
// with a terminal error saying what changed.
func TestResumeOnAChangedPaneIsATerminalError(t *testing.T) {
	work, p, _ := setup(t)
	a := newPaneAgent(p, "")
	a.work = 1 << 30
	var last fsm.Checkpoint
	o := paneOpts(work, t.TempDir(), quickConfig())
	ctx, cancel := context.WithCancel(context.Background())
	o.OnPoll = func(p fsm.Poll) {
		if p.State == handoff.Working {
			cancel()
		}
	}
	o.OnCheckpoint = func(cp fsm.Checkpoint) error { last = cp; return nil }
	if _, err := fsm.SendAndWait(ctx, a, a, "task", o); !errors.Is(err, context.Canceled) {
		t.Fatalf("first wait: %v", err)
	}
	if last.Pane == nil || *last.Pane != a.id {
		t.Fatalf("checkpoint pane %+v, want %+v", last.Pane, a.id)
	}
	for name, change := range map[string]func(*handoff.PaneIdentity){
		"restarted": func(id *handoff.PaneIdentity) {
			id.ServerPID, id.ServerStarted, id.PID = 99, "2026-03-04T06:00:00Z", 100
		},
		"another pane":    func(id *handoff.PaneIdentity) { id.Pane = "%7" },
		"another process": func(id *handoff.PaneIdentity) { id.Started = "43 ticks after boot" },
	} {
		b := newPaneAgent(p, "")
		b.id = a.id
		change(&b.id)
		cp := last
		ro := paneOpts(work, t.TempDir(), quickConfig())
		ro.Resume = &cp
		res, err := fsm.Wait(context.Background(), b, ro)
		var we *handoff.WaitError
		if !errors.Is(err, handoff.ErrTerminalError) || !errors.Is(err, handoff.ErrPaneChanged) || !errors.As(err, &we) {
			t.Fatalf("%s: %v, want a terminal error wrapping ErrPaneChanged", name, err)
		}
		if res.Polls != last.Core.Polls+1 || b.calls != 0 {
			t.Errorf("%s: %d polls (checkpoint %d), agent looked at %d times; want one poll more, the agent untouched",
				name, res.Polls, last.Core.Polls, b.calls)
		}
		words := map[string]string{"restarted": "was restarted", "another pane": "now pane %7, was %3", "another process": "another process"}[name]
		if !strings.Contains(err.Error(), words) {
			t.Errorf("%s: %q does not say what changed (%q)", name, err, words)
		}
	}
	// The same pane resumes.
	cp := last
	a.mu.Lock()
	a.work, a.answer, a.looks = 0, "the answer", 0
	a.mu.Unlock()
	ro := paneOpts(work, t.TempDir(), quickConfig())
	ro.Resume = &cp
	if res, err := fsm.Wait(context.Background(), a, ro); err != nil || res.Content != "the answer" {
		t.Fatalf("the same pane: %q, %v", res.Content, err)
	}
}
