package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// newQwenRigAt starts a fake Chat Completions API and Qwen Code with the
// work folder and HOME under root; opts sets the rest. Everything ends in
// t.Cleanup.
func newQwenRigAt(t *testing.T, opts realqwen.Options, root string) *rig {
	t.Helper()
	return startRig(t, realqwen.CLI, fakemodel.ChatCompletions{}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realqwen.Start(ctx, opts) })
}

// qwenBusy reports Qwen Code's busy line: "⠹ Thinking... (3s · esc to
// cancel)", which a narrow pane wraps.
func qwenBusy(plain string) bool {
	return strings.Contains(plain, "to cancel)")
}

// qwenFinished reports a turn that ended with the message last: "◆︎ last"
// on the screen, nothing busy, the title not spinning.
func qwenFinished(plain, title, last string) bool {
	return strings.Contains(plain, last) && strings.Contains(plain, "◆") && !qwenBusy(plain) && !qwen.TitleSpinning(title)
}

// The shipped command with --provider qwen in a pane that, like an
// ordinary tmux, sets TERM but not COLORTERM: the answer comes back (exit
// 0), then an API error in the same pane exits 4.
func TestRealQwenSendCommandWithoutColorterm(t *testing.T) {
	parallel(t)
	realqwen.CLI.Require(t)
	r := newQwenRigAt(t, realqwen.Options{Common: realcli.Common{Terminal: realcli.Terminal{Term: "tmux-256color"}}}, t.TempDir())
	sendAnswerThenError(t, r, fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
}

// Qwen Code's Stop hook fires in this offline setup when a turn ends, and
// the wait decides on its marker (see hookEndsTheWait).
func TestRealQwenStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realqwen.CLI.Require(t)
	hookEndsTheWait(t, "Stop", func(hooks map[string]string) *rig {
		return newQwenRigAt(t, realqwen.Options{Hooks: hooks}, t.TempDir())
	})
}
