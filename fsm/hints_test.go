package fsm_test

import (
	"context"
	"os"
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
				Logger: quiet(), Hints: hintSrc, OnPoll: func(p fsm.Poll) { polls <- p }})
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
		Logger: quiet(), Hints: hints, HintPoll: 50 * time.Millisecond, OnPoll: func(fsm.Poll) { n.Add(1) }})
	if err == nil {
		t.Fatal("an agent working past the response timeout must fail")
	}
	// 400 ms at one observation per 50 ms at most, plus the first and the
	// one at the deadline.
	if got := n.Load(); got > 400/50+2 {
		t.Errorf("%d observations in 400 ms of endless hints; want at most one per 50 ms", got)
	}
}
