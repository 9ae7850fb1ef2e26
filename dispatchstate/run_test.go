package dispatchstate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

func TestMain(m *testing.M) { simtest.Main(m) }

// One recipe, both ways: a dispatch sent through the owner's hooks (its
// sender, its checkpoint keeper) is cut short mid-wait; the same state,
// holding the last checkpoint, runs again and ends with the agent's answer
// without pasting the prompt a second time.
func TestRunSendsThenResumesWithoutPastingAgain(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "finish")
	o := simtest.Quick()
	o.WorkUntil = gate
	a := simtest.Start(t, "hfds", 1, o)
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 200*time.Millisecond, 5*time.Second, 60*time.Second
	st := &dispatchstate.State{Version: dispatchstate.Version, Pane: dispatchstate.Pane{Target: a.Panes[0], Socket: a.Priv.Socket, Provider: "codex"},
		History: tmuxdriver.DefaultHistory, TmuxTimeout: "5s", Role: "analyst", Workdir: a.Workdir, Config: cfg,
		Prompt: "the recipe's prompt"}
	var (
		mu   sync.Mutex
		last *fsm.Checkpoint
	)
	sender := &testkit.Sends{}
	hooks := dispatchstate.Hooks{
		Options: func(opts *fsm.Options) {
			opts.OnCheckpoint = func(cp fsm.Checkpoint) error {
				mu.Lock()
				last = &cp
				mu.Unlock()
				return nil
			}
		},
		WatchFile: true,
		Sender:    func(p *tmuxdriver.Pane) handoff.Sender { return sender.Wrap(p) },
	}

	// The first run: cut short once the wait has a checkpoint.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := dispatchstate.Run(ctx, st, hooks)
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := last
		mu.Unlock()
		if got != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the first run ended without an error though it was cut short")
	}
	if n := sender.Count(); n != 1 {
		t.Fatalf("the first run pasted %d times through the owner's sender, want 1", n)
	}

	// The second run resumes from the last checkpoint: no paste, the answer.
	mu.Lock()
	st.Wait = last
	mu.Unlock()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer rcancel()
	res, err := dispatchstate.Run(rctx, st, hooks)
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	if !strings.Contains(res.Content, "the recipe's prompt") {
		t.Errorf("the answer %q does not echo the prompt", res.Content)
	}
	if n := sender.Count(); n != 1 {
		t.Errorf("pasted %d times in all, want 1: the resumed run pasted again", n)
	}
	if strings.Count(a.Screen(t, a.Panes[0]), "the recipe's prompt") < 1 {
		t.Errorf("the prompt never reached the pane")
	}
}
