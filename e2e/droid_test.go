package e2e

import (
	"context"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realdroid"
)

// droid's Stop hook (settings.json, Claude Code's form) fires in this
// offline setup when a turn ends, and the wait decides on its marker (see
// stopHookEndsTheWait). Unlike Claude Code's, droid's hook input carries no
// last_assistant_message: the marker has the event, the session and the
// folder; the answer comes from the response file.
func TestRealDroidStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realdroid.CLI.Require(t)
	stopHookEndsTheWait(t, func(hooks map[string]string) *rig {
		return newDroidRigAt(t, realdroid.Options{Hooks: hooks}, t.TempDir())
	})
}

// newDroidRigAt starts a fake Chat Completions API (shell tool Execute,
// with the summary and risk level it requires) and droid in root's work
// folder and HOME; opts sets the rest. Everything ends in t.Cleanup.
func newDroidRigAt(t *testing.T, opts realdroid.Options, root string) *rig {
	t.Helper()
	return startRig(t, realdroid.CLI, fakemodel.ChatCompletions{ShellTool: realdroid.ShellTool, ShellArgs: realdroid.ShellArgs()}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realdroid.Start(ctx, opts) })
}
