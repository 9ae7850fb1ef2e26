package e2e

import (
	"context"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realomp"
)

// The shipped command on one OMP pane, as a user drives it: `send
// --provider omp` twice, then `send --provider auto` twice (the pane's
// command is bun, which names no CLI: OMP recognises its own title and
// screen). Each dispatch gets its own answer, in a pane that sets TERM but
// not COLORTERM; then an API error in the same pane exits 4.
func TestRealOmpSendByNameAndAutoTwiceEach(t *testing.T) {
	parallel(t)
	realomp.CLI.Require(t)
	newOmpRigAt(t, realomp.Options{Common: realcli.Common{Terminal: tmuxTerminal}}, t.TempDir()).sendByNameAndAutoTwiceEach("omp")
}

// newOmpRigAt starts a fake Chat Completions API (shell tool bash) and OMP
// in root's work folder and HOME; opts sets the rest. Everything ends in
// t.Cleanup.
func newOmpRigAt(t *testing.T, opts realomp.Options, root string) *rig {
	t.Helper()
	return startRig(t, realomp.CLI, fakemodel.ChatCompletions{ShellTool: realomp.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realomp.Start(ctx, opts) })
}
