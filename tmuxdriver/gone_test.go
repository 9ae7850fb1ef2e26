package tmuxdriver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// The engine fails at once on a pane that will not come back and retries
// any other failed poll: the sentinels say which is which.
func TestGoneSentinelsMatchTerminalGone(t *testing.T) {
	for _, err := range []error{tmuxdriver.ErrTmuxNotFound, tmuxdriver.ErrServerNotRunning,
		tmuxdriver.ErrTargetNotFound, tmuxdriver.ErrPaneDead, tmuxdriver.ErrAgentExited} {
		wrapped := fmt.Errorf("pane %%3: %w", err)
		if !errors.Is(wrapped, handoff.ErrTerminalGone) || !errors.Is(wrapped, err) {
			t.Errorf("%v: does not match both itself and handoff.ErrTerminalGone", err)
		}
	}
	if errors.Is(tmuxdriver.ErrPaneDead, tmuxdriver.ErrServerNotRunning) {
		t.Error("gone sentinels match each other")
	}
	for _, err := range []error{tmuxdriver.ErrTmuxTimeout, tmuxdriver.ErrScreenError} {
		if errors.Is(err, handoff.ErrTerminalGone) {
			t.Errorf("%v matches ErrTerminalGone", err)
		}
	}
}

// A tmux call that times out is one failed look: status "" (not an error
// status), so the engine retries it.
func TestTimedOutPollIsRetryable(t *testing.T) {
	p := hungTmux(t)
	st, err := p.Status(context.Background())
	if !errors.Is(err, tmuxdriver.ErrTmuxTimeout) || errors.Is(err, handoff.ErrTerminalGone) || st != "" {
		t.Fatalf("status %q, %v; want \"\" and a retryable ErrTmuxTimeout", st, err)
	}
	missing := tmuxdriver.Server{Socket: "hfrel-none", Binary: "tmux-not-installed-anywhere"}
	p, _ = tmuxdriver.New(tmuxdriver.Options{Server: missing, Target: "main", Classifier: testClassifier{}})
	if st, err := p.Status(context.Background()); st != handoff.StatusError || !errors.Is(err, handoff.ErrTerminalGone) {
		t.Fatalf("tmux missing: status %q, %v; want an error status, gone", st, err)
	}
}

// A tmux that exits cleanly while a child it forked (a new server, before it
// detaches) still holds its output open has answered: its output is the
// answer, not an error, however long the child lingers.
func TestACleanExitWhoseChildHoldsTheOutputIsAnAnswer(t *testing.T) {
	forks := filepath.Join(t.TempDir(), "tmux")
	if err := os.WriteFile(forks, []byte("#!/bin/sh\necho 3.3a\nsleep 5 &\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := tmuxdriver.Server{Socket: "hfrel-none", Binary: forks, Timeout: 30 * time.Second}
	out, err := srv.Run(context.Background(), nil, "-V")
	if err != nil || out != "3.3a\n" {
		t.Fatalf("Run = %q, %v; want the clean exit's output and no error", out, err)
	}
}
