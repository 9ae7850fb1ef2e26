package fsm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// switchAgent works until told it is done, then is idle.
type switchAgent struct{ done atomic.Bool }

func (a *switchAgent) Status(context.Context) (handoff.Status, error) {
	if a.done.Load() {
		return handoff.StatusIdle, nil
	}
	return handoff.StatusProcessing, nil
}
func (a *switchAgent) LastOutput(context.Context) (string, error) { return "", nil }

// With a poll of an hour, only the hint can end this wait before the test's
// deadline: the answer is written and the hint given after the first poll.
func TestAHintEndsTheWaitWithoutWaitingForThePoll(t *testing.T) {
	for _, source := range []string{"channel", "file watcher"} {
		t.Run(source, func(t *testing.T) {
			work, p, _ := setup(t)
			cfg := handoff.DefaultConfig()
			cfg.Poll = time.Hour
			agent := &switchAgent{}
			hints := make(chan struct{}, 1)
			var hintSrc <-chan struct{} = hints
			if source == "file watcher" {
				w, err := responsefile.Watch(p)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				hintSrc = w.C()
			}
			polls := make(chan fsm.Poll, 100)
			go func() {
				<-polls // the first observation: working
				agent.done.Store(true)
				if err := os.WriteFile(p, []byte("answer"), 0o644); err != nil {
					t.Error(err)
				}
				if source == "channel" {
					hints <- struct{}{}
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := fsm.Wait(ctx, agent, fsm.Options{Config: cfg, Role: "analyst", Workdir: work,
				Logger: quiet(), Wakeups: fsm.Wakeups{Hints: hintSrc}, OnPoll: func(p fsm.Poll) { polls <- p }})
			if err != nil {
				t.Fatalf("the hint did not wake the wait: %v", err)
			}
			if res.Content != "answer" || res.Source != fsm.SourceFile {
				t.Errorf("got %+v", res)
			}
		})
	}
}

// A flood of hints costs one observation per HintPoll, not one each.
func TestHintsAreDebounced(t *testing.T) {
	work, _, _ := setup(t)
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.ResponseTimeout = time.Hour, 400*time.Millisecond
	hints := make(chan struct{})
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case hints <- struct{}{}:
			case <-stop:
				return
			}
		}
	}()
	var n atomic.Int64
	_, err := fsm.Wait(context.Background(), &switchAgent{}, fsm.Options{Config: cfg, Role: "analyst", Workdir: work,
		Logger: quiet(), Wakeups: fsm.Wakeups{Hints: hints, HintPoll: 50 * time.Millisecond}, OnPoll: func(fsm.Poll) { n.Add(1) }})
	if err == nil {
		t.Fatal("an agent working past the response timeout must fail")
	}
	// 400 ms at one observation per 50 ms at most, plus the first and the
	// one at the deadline.
	if got := n.Load(); got > 400/50+2 {
		t.Errorf("%d observations in 400 ms of endless hints; want at most one per 50 ms", got)
	}
}

// The agent's completion hook ends the wait without the screen: the screen
// here never stops saying processing, and the poll is an hour.
func TestTheCompletionHookEndsTheWaitWithoutTheScreen(t *testing.T) {
	work, p, _ := setup(t)
	cfg := handoff.DefaultConfig()
	cfg.Poll = time.Hour
	turns := make(chan struct{}, 1)
	polls := make(chan fsm.Poll, 10)
	go func() {
		<-polls
		if err := os.WriteFile(p, []byte("answer"), 0o644); err != nil {
			t.Error(err)
		}
		if err := responsefile.MarkTurnComplete(p, []byte("{}")); err != nil {
			t.Error(err)
		}
		turns <- struct{}{}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last fsm.Poll
	res, err := fsm.Wait(ctx, fixed(handoff.StatusProcessing), fsm.Options{Config: cfg, Role: "analyst", Workdir: work,
		Logger: quiet(), Wakeups: fsm.Wakeups{Turns: turns}, OnPoll: func(p fsm.Poll) { last = p; polls <- p }})
	if err != nil || res.Content != "answer" {
		t.Fatalf("got %+v, %v", res, err)
	}
	if !last.TurnCompleted || last.Status != handoff.StatusCompleted {
		t.Errorf("the deciding observation %+v is not the hook's", last)
	}
}

// A marker older than the dispatch is an earlier turn's: the observation is
// then a normal one (here: the screen says processing, so no decision).
func TestAnOldTurnMarkerIsIgnored(t *testing.T) {
	work, p, _ := setup(t)
	if err := responsefile.MarkTurnComplete(p, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(responsefile.TurnMarker(p), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("an answer the screen has not confirmed"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.ResponseTimeout = 50*time.Millisecond, 300*time.Millisecond
	turns := make(chan struct{}, 1)
	turns <- struct{}{}
	var hooked atomic.Bool
	_, err := fsm.Wait(context.Background(), fixed(handoff.StatusProcessing), fsm.Options{Config: cfg, Role: "analyst",
		Workdir: work, Logger: quiet(), Wakeups: fsm.Wakeups{Turns: turns}, OnPoll: func(p fsm.Poll) { hooked.Store(hooked.Load() || p.TurnCompleted) }})
	if !errors.Is(err, handoff.ErrTimeout) || hooked.Load() {
		t.Errorf("err %v, hook observation used: %v; want the old marker ignored and a timeout", err, hooked.Load())
	}
}

// The response file's watch wakes on the file, the hook's marker is the
// turn signal and the wait's TurnMarker, and cheap looks shorten HintPoll.
func TestWakeSourcesWireEveryWakeup(t *testing.T) {
	work := t.TempDir()
	p, err := handoff.ResponsePath(work, "analyst")
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "hooks", "stopped.json")
	out := make(chan struct{})
	w, stop, err := fsm.WakeSources{Workdir: work, Path: p, HookMarker: marker, Output: out, CheapLooks: true}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if w.Output != (<-chan struct{})(out) || w.HintPoll != fsm.CheapHintPoll || w.TurnMarker != marker {
		t.Errorf("wakeups %+v", w)
	}
	if err := os.WriteFile(p, []byte("answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantSignal(t, "a hint for the response file", w.Hints)
	if err := os.WriteFile(marker, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantSignal(t, "a turn for the hook's marker", w.Turns)
}

// A watch that cannot start is said, and the others are wired anyway.
func TestWakeSourcesKeepWhatStartsWhenOneWatchCannot(t *testing.T) {
	work := t.TempDir()
	p, _ := handoff.ResponsePath(work, "analyst")
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := make(chan struct{})
	w, stop, err := fsm.WakeSources{Workdir: work, Path: p, HookMarker: filepath.Join(file, "stopped.json"), Output: out}.Open()
	defer stop()
	if err == nil || !strings.Contains(err.Error(), "hook folder") {
		t.Fatalf("want an error naming the hook folder, got %v", err)
	}
	if w.Hints == nil || w.Output == nil || w.TurnMarker != "" || w.HintPoll != 0 {
		t.Errorf("wakeups %+v", w)
	}
}

func wantSignal(t *testing.T, what string, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s", what)
	}
}
