//go:build unix

package tmuxdriver_test

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/proctable"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// stopSelf stops the calling process until a SIGCONT.
func stopSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }

// resume sends pid a SIGCONT.
func resume(pid int) { _ = syscall.Kill(pid, syscall.SIGCONT) }

// stopped reports whether pid is stopped by a signal.
func stopped(pid int) bool {
	f := proctable.Stat(pid)
	return f != nil && (f[0][0] == 'T' || f[0][0] == 't')
}

// agentPID is the process below p's own (the agent run by a via command:
// see echoPaneVia).
func agentPID(t *testing.T, p *tmuxdriver.Pane) int {
	t.Helper()
	snap, err := p.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	below := proctable.Descendants(snap.PID)
	if len(below) != 1 {
		t.Fatalf("pane process %d has %d processes below it, want the agent alone", snap.PID, len(below))
	}
	return below[0]
}
