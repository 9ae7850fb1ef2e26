package e2e

import (
	"context"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realomp"
)

// newOmpRigAt starts a fake Chat Completions API (shell tool bash) and OMP
// in root's work folder and HOME; opts sets the rest. Everything ends in
// t.Cleanup.
func newOmpRigAt(t *testing.T, opts realomp.Options, root string) *rig {
	t.Helper()
	return startRig(t, realomp.CLI, fakemodel.ChatCompletions{ShellTool: realomp.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realomp.Start(ctx, opts) })
}
