package e2e

import (
	"context"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcontinue"
)

// The shipped command on one Continue pane, as a user drives it: `send
// --provider continue` twice, then `send --provider auto` twice (the
// pane's command is node and its title unset: the footer "◉ Continue CLI"
// under its box recognises it; stderr says continue recognises the pane).
// Each dispatch gets its own answer, in a pane that sets TERM but not
// COLORTERM; no hook fires (Continue has none that does): the screen and
// the response file decide. Then an API error in the same pane exits 4.
func TestRealContinueSendByNameAndAutoTwiceEach(t *testing.T) {
	parallel(t)
	realcontinue.CLI.Require(t)
	opts := realcontinue.Options{Common: realcli.Common{Terminal: tmuxTerminal}}
	r := startRig(t, realcontinue.CLI, fakemodel.ChatCompletions{ShellTool: realcontinue.ShellTool}, t.TempDir(), &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realcontinue.Start(ctx, opts) })
	sendByNameAndAuto(t, r, []string{"continue", "continue", "auto", "auto"}, invalidArgument)
}
