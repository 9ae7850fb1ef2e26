package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcopilot"
)

// copilotMore takes the folder-trust dialog of a fresh start in a folder
// not trusted yet, and the composer in shell mode.
func copilotMore(t *testing.T, s captureScript, c *screenCapturer, r *rig) {
	const short = 45 * time.Second
	var w, h int
	if _, err := fmt.Sscanf(c.size, "%dx%d", &w, &h); err != nil {
		t.Fatal(err)
	}
	u := newCopilotRigAt(t, realcopilot.Options{Common: realcli.Common{Width: w, Height: h}, Untrusted: true},
		fixedRootUnder(t, "/tmp/handoff-e2e-copilot", "untrusted"))
	s.shot(c, u, "waiting-folder-trust", handoff.StatusWaitingUserAnswer)
	if err := r.cli.Keys(context.Background(), "!"); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(short, "shell mode", func(p, _ string) bool { return has(p, "Execute shell command") })
	time.Sleep(500 * time.Millisecond)
	s.shot(c, r, "idle-shell-mode", handoff.StatusCompleted)
	r.keys("Escape")
	r.waitScreen(short, "shell mode left", func(p, _ string) bool { return !has(p, "Execute shell command") })
}

// newCopilotRigAt starts a fake Chat Completions API (shell tool bash) and
// Copilot CLI in root's work folder and HOME; opts sets the rest.
// Everything ends in t.Cleanup.
func newCopilotRigAt(t *testing.T, opts realcopilot.Options, root string) *rig {
	t.Helper()
	return startRig(t, realcopilot.CLI, fakemodel.ChatCompletions{ShellTool: realcopilot.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realcopilot.Start(ctx, opts) })
}

// copilotBusy reports the footer of a running turn ("● Working esc esc
// edit prompt", "○ Working · 60 B esc esc interrupt").
func copilotBusy(plain, _ string) bool {
	for _, l := range lastLines(plain, 4) {
		if strings.Contains(l, " Working") || strings.Contains(l, "esc esc interrupt") {
			return true
		}
	}
	return false
}

// copilotFinished reports a turn that ended with last on the screen: the
// idle footer back.
func copilotFinished(plain, _, last string) bool {
	return strings.Contains(plain, last) && !copilotBusy(plain, "") && strings.Contains(plain, realcopilot.IdleFooter)
}

// lastLines are the last n non-blank lines of plain.
func lastLines(plain string, n int) []string {
	var out []string
	lines := strings.Split(plain, "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
		}
	}
	return out
}
