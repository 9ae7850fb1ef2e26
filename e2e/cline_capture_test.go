package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcline"
)

// captureClineNotice takes the promotion Cline may show at its start (in
// a fresh home, with the notice allowed): a dialog over the composer.
func captureClineNotice(t *testing.T, _ captureScript, c *screenCapturer, _ *rig) {
	var w, h int
	if _, err := fmt.Sscanf(c.size, "%dx%d", &w, &h); err != nil {
		t.Fatal(err)
	}
	n := newClineRigAt(t, realcline.Options{Common: realcli.Common{Width: w, Height: h}, Notice: true}, fixedRootUnder(t, "/tmp/handoff-e2e-cline", "notice"))
	if !n.shows(10*time.Second, func(p, _ string) bool { return has(p, realcline.Notice) }) {
		t.Logf("Cline showed no notice at its start: none taken")
		return
	}
	c.shot(n, "waiting-notice", handoff.StatusWaitingUserAnswer,
		"a promotion at the start ('Try ClinePass' or 'Get Cline Desktop'), drawn over the composer, ending 'Press Enter to open, any other key to close': Esc closes it")
}

// newClineRigAt starts a fake Chat Completions API (shell tool
// run_commands, which takes a list) and Cline in root's work folder and
// HOME; opts sets the rest. Everything ends in t.Cleanup, Cline's hub
// daemon too.
func newClineRigAt(t *testing.T, opts realcline.Options, root string) *rig {
	t.Helper()
	return startRig(t, realcline.CLI, fakemodel.ChatCompletions{ShellTool: realcline.ShellTool, Commands: true}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realcline.Start(ctx, opts) })
}
