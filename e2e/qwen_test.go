package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// newQwenRig starts a fake Chat Completions API and Qwen Code in a fresh
// work folder and HOME; opts sets the rest. Everything ends in t.Cleanup.
func newQwenRig(t *testing.T, opts realqwen.Options) *rig {
	t.Helper()
	return newQwenRigAt(t, opts, t.TempDir())
}

// newQwenRigAt is newQwenRig with the work folder and HOME under root.
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

// Qwen Code's Stop hook fires in this offline setup when a turn ends.
// Registered as `handoff-fsm hook --dir DIR`, it leaves the stopped
// marker, and with it as the turn marker (what `send --hook-dir DIR` does)
// the wait decides on it, not on the screen: the poll is a minute, there
// is no file watch, and the wait still ends within seconds.
func TestRealQwenStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realqwen.CLI.Require(t)
	bin := buildCommand(t)
	events := t.TempDir()
	hook := handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)
	r := newQwenRig(t, realqwen.Options{Hooks: map[string]string{"Stop": hook}})
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))

	res, polls := r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	t.Logf("done %v after dispatch, on the Stop hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
	stopped, ok, err := hookmark.Read(events, hookmark.Stopped)
	if err != nil || !ok || stopped.Hook != "Stop" || stopped.LastMessage != "Final words." || stopped.Session == "" {
		t.Fatalf("stop marker %+v, %v, %v", stopped, ok, err)
	}
}

// The shipped command with --provider qwen in a pane that, like an
// ordinary tmux, sets TERM but not COLORTERM: the answer comes back (exit
// 0), then an API error in the same pane exits 4.
func TestRealQwenSendCommandWithoutColorterm(t *testing.T) {
	parallel(t)
	realqwen.CLI.Require(t)
	r := newQwenRig(t, realqwen.Options{Common: realcli.Common{Terminal: realcli.Terminal{Term: "tmux-256color"}}})
	sendAnswerThenError(t, r, fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
}
