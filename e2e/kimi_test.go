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
	"github.com/handoff-fsm/handoff-fsm/internal/realkimi"
)

// The shipped command on one Kimi Code pane, as a user drives it: `send
// --provider kimi` twice, then `send --provider auto` twice (the pane's
// command is kimi-code, which names the provider; stderr says kimi
// recognises the pane). Each dispatch gets its own answer, in a pane that
// sets TERM but not COLORTERM; then an API error in the same pane exits 4.
func TestRealKimiSendByNameAndAutoTwiceEach(t *testing.T) {
	parallel(t)
	realkimi.CLI.Require(t)
	r := newKimiRigAt(t, realkimi.Options{Common: realcli.Common{Terminal: tmuxTerminal}}, t.TempDir())
	bin := buildCommand(t)
	for i, prov := range []string{"kimi", "kimi", "auto", "auto"} {
		want := fmt.Sprintf("Answer %d, through --provider %s.", i+1, prov)
		r.model.Script(fakemodel.WriteResponse(want), fakemodel.Answer("I wrote the response file."))
		stdout, stderr, code := r.runSend(bin, "--provider", prov, "--idle-grace", "8s", "--timeout", "90s",
			"--role", "analyst", "--prompt", fmt.Sprintf("Analyse the project, step %d.", i+1))
		if code != 0 || stdout != want+"\n" {
			r.fail("send %d (--provider %s): exit %d, stdout %q; want 0 and %q\n%s", i+1, prov, code, stdout, want+"\n", stderr)
		}
		if prov == "auto" && !strings.Contains(stderr, "--provider auto: kimi recognises pane") {
			r.fail("send %d: stderr does not say kimi recognised the pane:\n%s", i+1, stderr)
		}
	}
	r.model.Script(fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
	if stdout, _, code := r.runSend(bin, "--provider", "kimi", "--idle-grace", "8s", "--timeout", "90s",
		"--role", "analyst", "--prompt", "Analyse it again."); code != 4 || stdout != "" {
		r.fail("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
	}
}

// Kimi Code's Stop hook ([[hooks]] in config.toml) fires in this offline
// setup when a turn ends, and the wait decides on its marker (see
// waitOnStopMarker): the marker has the event, the session and the
// folder; the answer comes from the response file.
func TestRealKimiStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realkimi.CLI.Require(t)
	bin := buildCommand(t)
	events := t.TempDir()
	r := newKimiRigAt(t, realkimi.Options{Hooks: map[string]string{"Stop": handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)}}, t.TempDir())
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))
	res, polls := r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	t.Logf("done %v after dispatch, on the Stop hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
	stopped, ok, err := hookmark.Read(events, hookmark.Stopped)
	if err != nil || !ok || stopped.Hook != "Stop" || stopped.Session == "" || stopped.Cwd != r.workdir {
		t.Fatalf("stop marker %+v, %v, %v", stopped, ok, err)
	}
}
