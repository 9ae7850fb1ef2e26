package e2e

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realdroid"
)

// The shipped command on one droid pane, as a user drives it: `send
// --provider droid` twice, then `send --provider auto` twice (the pane's
// command is droid's binary; stderr says droid recognises the pane). Each
// dispatch gets its own answer, in a pane that sets TERM but not
// COLORTERM; then an API error in the same pane exits 4.
func TestRealDroidSendByNameAndAutoTwiceEach(t *testing.T) {
	parallel(t)
	realdroid.CLI.Require(t)
	newDroidRigAt(t, realdroid.Options{Common: realcli.Common{Terminal: tmuxTerminal}}, t.TempDir()).sendByNameAndAutoTwiceEach("droid")
}

// droid's Stop hook (settings.json, Claude Code's form) fires in this
// offline setup when a turn ends, and the wait decides on its marker (see
// waitOnStopMarker). Unlike Claude Code's, droid's hook input carries no
// last_assistant_message: the marker has the event, the session and the
// folder; the answer comes from the response file.
func TestRealDroidStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realdroid.CLI.Require(t)
	stopHookEndsTheWait(t, func(hooks map[string]string) *rig {
		return newDroidRigAt(t, realdroid.Options{Hooks: hooks}, t.TempDir())
	})
}
