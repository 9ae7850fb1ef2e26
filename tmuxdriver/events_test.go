package tmuxdriver_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// A dead pane is noticed at once, not at the next poll: tmux reports a
// pane that closes, or dies under remain-on-exit, to the control client,
// and the wait's wake-up channel rings; the look it causes says dead or
// gone. Each case waits on the channel alone (no poll), so without the
// event the test fails.
func TestAPaneThatEndsWakesTheWaitAtOnce(t *testing.T) {
	cases := []struct {
		name         string
		remainOnExit bool
		gone         error
	}{
		{"remain-on-exit: the pane stays, dead", true, tmuxdriver.ErrPaneDead},
		{"the pane closes with its window", false, tmuxdriver.ErrTargetNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, via := range []string{"Control", "Shared"} {
				t.Run(via, func(t *testing.T) {
					srv := testServer(t)
					ctx := context.Background()
					if tc.remainOnExit {
						if _, err := srv.Run(ctx, nil, "set-option", "-g", "remain-on-exit", "on"); err != nil {
							t.Fatal(err)
						}
					}
					id := newWindow(t, srv, "exec sleep 600")
					p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Classifier: testClassifier{}})
					if err != nil {
						t.Fatal(err)
					}
					wake := watchPane(t, srv, id, via)
					// The subscription reports each pane once as it starts:
					// take that, so the ring below is the pane's end.
					select {
					case <-wake:
					case <-time.After(20 * time.Second):
						t.Fatal("no first report of the panes within 20 s")
					}
					pid, err := srv.Run(ctx, nil, "display-message", "-p", "-t", id, "#{pane_pid}")
					if err != nil {
						t.Fatal(err)
					}
					// Killed from here, not with tmux's run-shell: that one
					// waits on a job of the server's, which under load took
					// longer than a tmux call may.
					n, err := strconv.Atoi(strings.TrimSpace(pid))
					if err != nil {
						t.Fatalf("pane pid %q: %v", pid, err)
					}
					if err := syscall.Kill(n, syscall.SIGTERM); err != nil {
						t.Fatal(err)
					}
					deadline := time.After(30 * time.Second)
					for {
						select {
						case <-wake:
						case <-deadline:
							t.Fatal("the pane ended and no wake-up came within 30 s")
						}
						if _, err := p.Observe(ctx); errors.Is(err, tc.gone) {
							return
						}
					}
				})
			}
		})
	}
}

// watchPane returns the wake-up channel a wait on pane id gets: a
// Control's hints, or a Shared client's watch.
func watchPane(t *testing.T, srv tmuxdriver.Server, id, via string) <-chan struct{} {
	t.Helper()
	ctx := context.Background()
	if via == "Shared" {
		s := tmuxdriver.StartShared(ctx, srv, "main", func(err error) { t.Errorf("control mode fell back: %v", err) })
		t.Cleanup(func() { _ = s.Close() })
		wake, stop := s.Watch()
		t.Cleanup(stop)
		return wake
	}
	_, c, err := tmuxdriver.StartControl(ctx, tmuxdriver.Options{Server: srv, Target: id, Classifier: testClassifier{}},
		func(err error) { t.Errorf("control mode fell back: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.Hints()
}
