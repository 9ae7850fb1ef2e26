package e2e

import (
	"context"
	"fmt"
	"strings"
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
	r := newOmpRigAt(t, realomp.Options{Common: realcli.Common{Terminal: tmuxTerminal}}, t.TempDir())
	bin := buildCommand(t)
	for i, prov := range []string{"omp", "omp", "auto", "auto"} {
		want := fmt.Sprintf("Answer %d, through --provider %s.", i+1, prov)
		r.model.Script(fakemodel.WriteResponse(want), fakemodel.Answer("I wrote the response file."))
		stdout, stderr, code := r.runSend(bin, "--provider", prov, "--idle-grace", "8s", "--timeout", "90s",
			"--role", "analyst", "--prompt", fmt.Sprintf("Analyse the project, step %d.", i+1))
		if code != 0 || stdout != want+"\n" {
			r.fail("send %d (--provider %s): exit %d, stdout %q; want 0 and %q\n%s", i+1, prov, code, stdout, want+"\n", stderr)
		}
		if prov == "auto" && !strings.Contains(stderr, "--provider auto: omp recognises pane") {
			r.fail("send %d: stderr does not say omp recognised the pane:\n%s", i+1, stderr)
		}
	}
	r.model.Script(fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
	if stdout, _, code := r.runSend(bin, "--provider", "omp", "--idle-grace", "8s", "--timeout", "90s",
		"--role", "analyst", "--prompt", "Analyse it again."); code != 4 || stdout != "" {
		r.fail("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
	}
}

// newOmpRigAt starts a fake Chat Completions API (shell tool bash) and OMP
// in root's work folder and HOME; opts sets the rest. Everything ends in
// t.Cleanup.
func newOmpRigAt(t *testing.T, opts realomp.Options, root string) *rig {
	t.Helper()
	return startRig(t, realomp.CLI, fakemodel.ChatCompletions{ShellTool: realomp.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realomp.Start(ctx, opts) })
}
