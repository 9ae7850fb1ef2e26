package e2e

import (
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcline"
)

// Cline's TaskComplete hook (~/.cline/hooks/TaskComplete.sh) fires in
// this offline setup when a turn ends, its payload's hookName agent_end,
// and the wait decides on its marker (see hookEndsTheWait).
func TestRealClineTaskCompleteHookEndsTheWait(t *testing.T) {
	parallel(t)
	realcline.CLI.Require(t)
	hookEndsTheWait(t, "agent_end", func(hooks map[string]string) *rig {
		return newClineRigAt(t, realcline.Options{Hooks: hooks}, t.TempDir())
	})
}

// Cline starts a hub daemon (`cline --cline-hub-daemon`) in a session of
// its own, which outlives the terminal UI and its tmux server; Close ends
// it (realcline.StopHub), so a test leaves nothing behind.
func TestRealClineHubEndsWithTheSession(t *testing.T) {
	parallel(t)
	realcline.CLI.Require(t)
	r := newClineRigAt(t, realcline.Options{}, t.TempDir())
	var hubs []int
	for deadline := time.Now().Add(30 * time.Second); len(hubs) == 0 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		hubs = realcline.Hubs(r.cli.Home)
	}
	if len(hubs) == 0 {
		t.Fatal("Cline started no hub daemon for its HOME")
	}
	if err := r.cli.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for _, pid := range hubs {
		if realcli.Alive(pid) {
			t.Errorf("hub daemon %d still runs after Close", pid)
		}
	}
	if left := realcline.Hubs(r.cli.Home); len(left) > 0 {
		t.Errorf("hub daemons left: %v", left)
	}
}
