package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// One full round of examples/three-agents against the real CLIs: Codex
// is the analyst, its reviewer and the tester; Claude Code the programmer
// and its reviewer. Each writes its response file through its own tool
// (the fake model servers script the answers).
func TestRealThreeAgentLoopWithBothProviders(t *testing.T) {
	parallel(t)
	realcodex.CLI.Require(t)
	realclaude.CLI.Require(t)
	bin := filepath.Join(t.TempDir(), "three-agents")
	if err := testkit.GoBuild(bin, "../examples/three-agents"); err != nil {
		t.Fatal(err)
	}
	cx := newRig(t, realcodex.Options{HideTips: true})
	cl := newClaudeRigAt(t, realclaude.Options{}, t.TempDir())
	cx.model.Script(
		fakemodel.WriteResponse("Plan: add a --verbose flag to main.go.").In(cx.workdir), fakemodel.Answer("Plan written."),
		fakemodel.WriteResponse("APPROVED: a clear plan.").In(cx.workdir), fakemodel.Answer("Review written."),
		fakemodel.WriteResponse("PASS: 3 tests.").In(cx.workdir), fakemodel.Answer("Report written."))
	cl.model.Script(
		fakemodel.WriteResponse("Changed main.go: --verbose prints each step."), fakemodel.Answer("Done."),
		fakemodel.WriteResponse("APPROVED: the change follows the plan."), fakemodel.Answer("Done."))
	codexPane := cx.cli.Target + ",codex," + cx.cli.Socket
	claudePane := cl.cli.Target + ",claude," + cl.cli.Socket
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--workdir", cx.workdir, "--task", "Add a --verbose flag", "--rounds", "1",
		"--poll", "250ms", "--idle-grace", "6s", "--timeout", "2m",
		"--pane", "analyst="+codexPane, "--pane", "analyst_review="+codexPane, "--pane", "tester="+codexPane,
		"--pane", "programmer="+claudePane, "--pane", "programmer_review="+claudePane)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("three-agents: %v\nstderr:\n%s", err, stderr.String())
	}
	if strings.TrimSpace(string(out)) != "PASS: 3 tests." {
		t.Fatalf("result %q\nstderr:\n%s", out, stderr.String())
	}
	steps, err := os.ReadFile(filepath.Join(cx.workdir, ".tmp", "three-agents", "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{`"analyst"`, `"analyst_review"`, `"programmer"`, `"programmer_review"`, `"tester"`} {
		if strings.Count(string(steps), `"role":`+role) != 1 {
			t.Errorf("journal does not hold one %s step:\n%s", role, steps)
		}
	}
	if !strings.Contains(string(steps), "Changed main.go: --verbose prints each step.") {
		t.Errorf("the programmer's answer (Claude Code) is not in the journal:\n%s", steps)
	}
}
