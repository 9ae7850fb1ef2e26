package e2e

import (
	"context"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
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
	r := newDroidRigAt(t, realdroid.Options{Common: realcli.Common{Terminal: tmuxTerminal}}, t.TempDir())
	sendByNameAndAuto(t, r, []string{"droid", "droid", "auto", "auto"}, invalidArgument)
}

// droid's Stop hook (settings.json, Claude Code's form) fires in this
// offline setup when a turn ends, and the wait decides on its marker (see
// waitOnStopMarker). Unlike Claude Code's, droid's hook input carries no
// last_assistant_message: the marker has the event, the session and the
// folder; the answer comes from the response file.
func TestRealDroidStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realdroid.CLI.Require(t)
	bin := buildCommand(t)
	events := t.TempDir()
	r := newDroidRigAt(t, realdroid.Options{Hooks: map[string]string{"Stop": handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)}}, t.TempDir())
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))
	res, polls := r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	t.Logf("done %v after dispatch, on the Stop hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
	stopped, ok, err := hookmark.Read(events, hookmark.Stopped)
	if err != nil || !ok || stopped.Hook != "Stop" || stopped.Session == "" || stopped.Cwd != r.workdir {
		t.Fatalf("stop marker %+v, %v, %v", stopped, ok, err)
	}
}

// newDroidRigAt starts a fake Chat Completions API (shell tool Execute,
// with the summary and risk level it requires) and droid in root's work
// folder and HOME; opts sets the rest. Everything ends in t.Cleanup.
func newDroidRigAt(t *testing.T, opts realdroid.Options, root string) *rig {
	t.Helper()
	return startRig(t, realdroid.CLI, fakemodel.ChatCompletions{ShellTool: realdroid.ShellTool, ShellArgs: realdroid.ShellArgs()}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realdroid.Start(ctx, opts) })
}
