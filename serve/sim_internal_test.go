package serve

import (
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
)

// simService is a service on a fresh state folder (dir) with one quick
// simulated agent, and newState makes a dispatch to that agent of prompt,
// polled every 250 ms.
func simService(t *testing.T, prefix string) (svc *Service, dir string, newState func(prompt string) *dispatchstate.State) {
	t.Helper()
	a := simtest.Start(t, prefix, 1, simtest.Quick())
	dir = t.TempDir()
	svc, err := New(Options{StateDir: dir, Control: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 250*time.Millisecond, 5*time.Second, 120*time.Second
	return svc, dir, func(prompt string) *dispatchstate.State {
		return &dispatchstate.State{Pane: dispatchstate.Pane{Target: a.Panes[0], Socket: a.Priv.Socket, Provider: "codex"}, History: 200,
			TmuxTimeout: "5s", Role: "analyst", Workdir: a.Workdir, Prompt: prompt, Config: cfg}
	}
}
