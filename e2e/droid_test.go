package e2e

import (
	"fmt"
	"strings"
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
	bin := buildCommand(t)
	for i, prov := range []string{"droid", "droid", "auto", "auto"} {
		want := fmt.Sprintf("Answer %d, through --provider %s.", i+1, prov)
		r.model.Script(fakemodel.WriteResponse(want), fakemodel.Answer("I wrote the response file."))
		stdout, stderr, code := r.runSend(bin, "--provider", prov, "--idle-grace", "8s", "--timeout", "90s",
			"--role", "analyst", "--prompt", fmt.Sprintf("Analyse the project, step %d.", i+1))
		if code != 0 || stdout != want+"\n" {
			r.fail("send %d (--provider %s): exit %d, stdout %q; want 0 and %q", i+1, prov, code, stdout, want+"\n")
		}
		if prov == "auto" && !strings.Contains(stderr, "--provider auto: droid recognises pane") {
			r.fail("send %d: stderr does not say droid recognised the pane:\n%s", i+1, stderr)
		}
	}
	r.model.Script(fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
	if stdout, _, code := r.runSend(bin, "--provider", "droid", "--idle-grace", "8s", "--timeout", "90s",
		"--role", "analyst", "--prompt", "Analyse it again."); code != 4 || stdout != "" {
		r.fail("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
	}
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
