package e2e

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
)

// newGeminiRigAt starts a fake Gemini API and Gemini CLI with the work
// folder and HOME under root; opts sets the rest. Everything is ended in
// t.Cleanup.
func newGeminiRigAt(t *testing.T, opts realgemini.Options, root string) *rig {
	t.Helper()
	return startRig(t, realgemini.CLI, fakemodel.Gemini{}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realgemini.Start(ctx, opts) })
}

// geminiBusy reports Gemini CLI's busy line: "⠋ Thinking... (esc to cancel, 3s)".
func geminiBusy(plain, _ string) bool { return strings.Contains(plain, "(esc to cancel") }

// geminiFinished reports a turn that ended with the message last: "✦ last"
// on the screen, nothing busy, the title back to ready.
func geminiFinished(plain, title, last string) bool {
	return strings.Contains(plain, "✦ "+last) && !geminiBusy(plain, title) && strings.HasPrefix(title, "◇")
}

// The shipped command with --provider gemini: the prompt with its
// instruction is pasted (Gemini CLI shows "[Pasted Text: 13 lines]" and
// takes an Enter that comes too soon as a new line); `handoff-fsm send`
// gets it through and prints exactly what Gemini CLI wrote (exit 0); then,
// in the same pane, an API error exits 4 with nothing on stdout.
func TestRealGeminiSendCommand(t *testing.T) {
	parallel(t)
	realgemini.CLI.Require(t)
	sendAnswerThenError(t, newGeminiRigAt(t, realgemini.Options{}, t.TempDir()), fakemodel.HTTPError(400, "", "Request contains an invalid argument (fake)."))
}

// The same in a pane that, like an ordinary tmux, sets TERM but not
// COLORTERM: Gemini CLI draws no half-block frame around its composer
// and prompts there, and the answer and the API error must still be read.
func TestRealGeminiSendCommandWithoutColorterm(t *testing.T) {
	parallel(t)
	realgemini.CLI.Require(t)
	r := newGeminiRigAt(t, realgemini.Options{Common: realcli.Common{Terminal: realcli.Terminal{Term: "tmux-256color"}}}, t.TempDir())
	sendAnswerThenError(t, r, fakemodel.HTTPError(400, "", "Request contains an invalid argument (fake)."))
}

// sendAnswerThenError runs `handoff-fsm send --provider <r's>` twice in
// r's pane: a turn that writes the response file (exit 0, the file's text
// on stdout, the prompt with its instruction reached the model whole),
// then one the API fails with apiError (exit 4, nothing on stdout).
func sendAnswerThenError(t *testing.T, r *rig, apiError fakemodel.Reply) {
	bin := buildCommand(t)
	run := func(args ...string) (stdout string, code int) {
		t.Helper()
		stdout, _, code = r.runSend(bin, append([]string{"--provider", r.provider, "--idle-grace", "8s", "--timeout", "90s"}, args...)...)
		return stdout, code
	}
	r.model.Script(fakemodel.WriteResponse(answer).After(time.Second), fakemodel.Answer("I wrote the response file."))
	if stdout, code := run("--role", "analyst", "--prompt", "Analyse the project."); code != 0 || stdout != answer+"\n" {
		r.fail("exit %d, stdout %q; want 0 and %q", code, stdout, answer+"\n")
	}
	turns := r.model.Turns()
	if len(turns) == 0 || !strings.Contains(turns[0].UserText, handoff.InstructionHeader) {
		t.Fatalf("the pasted prompt did not reach the model whole: %+v", turns)
	}
	// The same pane, then an API error.
	r.model.Script(apiError)
	if stdout, code := run("--role", "analyst", "--prompt", "Analyse it again."); code != 4 || stdout != "" {
		r.fail("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
	}
}

// Gemini CLI ignores the hang-up tmux sends when its server dies: its
// processes (a launcher and the Node process it starts) outlive `tmux
// kill-server`. That is why tmuxdriver.Private.Close, and so every rig's
// Close (startRig checks it for every test), ends the pane's processes
// first. This test shows the behaviour it guards against, and ends what
// kill-server left by pid.
func TestRealGeminiOutlivesKillServer(t *testing.T) {
	parallel(t)
	r := newGeminiRigAt(t, realgemini.Options{}, t.TempDir())
	pid := r.cli.PanePID()
	var ps []int
	for deadline := time.Now().Add(10 * time.Second); len(ps) < 2 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ps = append([]int{pid}, descendantsOf(pid)...)
	}
	t.Logf("gemini processes: %v", ps)
	if len(ps) < 2 {
		t.Fatalf("expected the launcher and its Node child, found %v", ps)
	}
	if err := exec.Command("tmux", "-L", r.cli.Socket, "kill-server").Run(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	var left []int
	for _, p := range ps {
		if realcli.Alive(p) {
			left = append(left, p)
			_ = syscall.Kill(p, syscall.SIGKILL) // ours
		}
	}
	if len(left) == 0 {
		t.Fatalf("Gemini CLI %s ended on the hang-up: the process-group ending in Close may no longer be needed", realgemini.CLI.Version)
	}
	// A SIGKILLed process is gone only once the kernel has torn it down
	// (a ~300 MB Node process takes a moment on a loaded machine); the
	// rig's cleanup checks that nothing of the pane is left.
	for _, p := range left {
		for deadline := time.Now().Add(30 * time.Second); realcli.Alive(p) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Logf("after kill-server alone, %d of %d processes still ran (ended them by pid): %v", len(left), len(ps), left)
}

// Gemini CLI's hooks fire in this offline setup: BeforeAgent when it takes
// a prompt, AfterAgent (with the turn's response) when a turn ends, and the
// wait decides on the AfterAgent marker (see hookEndsTheWait).
func TestRealGeminiAfterAgentHookEndsTheWait(t *testing.T) {
	parallel(t)
	realgemini.CLI.Require(t)
	events := hookEndsTheWait(t, "AfterAgent", func(hooks map[string]string) *rig {
		return newGeminiRigAt(t, realgemini.Options{Hooks: hooks}, t.TempDir())
	}, "BeforeAgent")
	sub, ok, err := hookmark.Read(events, hookmark.Submitted)
	if err != nil || !ok || sub.Hook != "BeforeAgent" || !strings.HasPrefix(sub.Detail, "Analyse the project.") {
		t.Fatalf("submit marker %+v, %v, %v", sub, ok, err)
	}
}
