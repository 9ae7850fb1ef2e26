//go:build !unix

package tmuxdriver_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// stopSelf cannot stop a process here: the agent goes on.
func stopSelf() {}

// resume has nothing to resume here.
func resume(int) {}

// stopped cannot tell here.
func stopped(int) bool { return false }

// agentPID cannot find the agent here.
func agentPID(t *testing.T, _ *tmuxdriver.Pane) int {
	t.Skip("no process table here")
	return 0
}
