package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/loop"
)

// agents starts a private tmux server with one simulated agent per role:
// the analyst and the programmer echo what they are asked, the reviewers
// and the tester answer with a fixed text.
func agents(t *testing.T, reviews string) (string, map[string]dispatchstate.Pane, string) {
	t.Helper()
	testkit.RequireTmux(t)
	bin := filepath.Join(t.TempDir(), "handoff-fsm")
	if err := testkit.GoBuild(bin, "../../cmd/handoff-fsm"); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	sim := handoff.ShellQuote(bin) + " sim-agent --startup 200ms --work 300ms --stream 100ms --cwd " + handoff.ShellQuote(work)
	cmds := map[string]string{
		"analyst":           sim + " --echo",
		"analyst_review":    sim + " --answer " + handoff.ShellQuote(reviews),
		"programmer":        sim + " --echo",
		"programmer_review": sim + " --answer APPROVED",
		"tester":            sim + " --answer " + handoff.ShellQuote("PASS: 12 tests"),
	}
	lines := make([]string, len(order))
	for i, role := range order {
		lines[i] = cmds[role]
	}
	priv, ids := simtest.StartCommands(t, "handoff-example", work, lines...)
	panes := map[string]dispatchstate.Pane{}
	for i, role := range order {
		panes[role] = dispatchstate.Pane{Target: ids[i], Provider: "codex"}
	}
	time.Sleep(time.Second) // the agents draw their prompts
	return priv.Socket, panes, work
}

func quick() handoff.Config {
	c := handoff.DefaultConfig()
	c.Poll, c.IdleGrace, c.ResponseTimeout = 200*time.Millisecond, 3*time.Second, time.Minute
	return c
}

func roles(t *testing.T, journal string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(journal, "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s loop.Step
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.Role)
	}
	return out
}

// The loop as the spec's roles run it: each response feeds the next
// prompt; a review asking for changes sends the work back (here every
// analyst review does, so the analysis goes round twice).
func TestTheLoopRunsEveryRoleAndSendsWorkBack(t *testing.T) {
	socket, panes, work := agents(t, "CHANGES REQUESTED: say more")
	journal := filepath.Join(work, ".tmp", "three-agents")
	result, err := run(context.Background(), options{socket: socket, workdir: work, task: "Add a --verbose flag",
		rounds: 2, panes: panes, config: quick(), log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(result) != "PASS: 12 tests" {
		t.Errorf("result %q, want the tester's report", result)
	}
	want := "analyst analyst_review analyst analyst_review programmer programmer_review tester"
	if got := strings.Join(roles(t, journal), " "); got != want {
		t.Errorf("steps %s, want %s", got, want)
	}
	// The programmer (an echo) was given the analysis, which carries the
	// task and the review that sent it back.
	steps, _ := loop.ReadJournal(journal)
	prog := steps[4].Response
	if !strings.Contains(prog, "Add a --verbose flag") || !strings.Contains(prog, "CHANGES REQUESTED: say more") {
		t.Errorf("the programmer's prompt did not carry the revised analysis:\n%s", prog)
	}
}

// Interrupted while a dispatch waits, the run goes on where it stopped:
// finished steps are read back, the waiting dispatch is resumed (not sent
// again), and the result is the same.
func TestTheLoopContinuesAfterAnInterruption(t *testing.T) {
	socket, panes, work := agents(t, "APPROVED")
	journal := filepath.Join(work, ".tmp", "three-agents")
	ctx, cancel := context.WithCancel(context.Background())
	o := options{socket: socket, workdir: work, task: "Fix the bug", rounds: 2, panes: panes, config: quick(), log: io.Discard,
		onPoll: func(role string, p fsm.Poll) {
			if role == "programmer" && p.State == handoff.Working {
				cancel() // the programmer is working: stop the orchestrator
			}
		}}
	if _, err := run(ctx, o); err == nil {
		t.Fatal("the interrupted run did not stop")
	}
	if got := strings.Join(roles(t, journal), " "); got != "analyst analyst_review" {
		t.Fatalf("steps before the interruption: %s", got)
	}
	if _, err := os.Stat(filepath.Join(journal, "inflight-dispatch.json")); err != nil {
		t.Fatalf("no checkpoint of the waiting dispatch: %v", err)
	}
	var resumed bool
	o.onPoll = nil
	o.afterStep = func(n int, role string) { resumed = resumed || n == 3 && role == "programmer" }
	result, err := run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(result) != "PASS: 12 tests" || !resumed {
		t.Errorf("result %q, programmer step finished on resume: %v", result, resumed)
	}
	if got := strings.Join(roles(t, journal), " "); got != "analyst analyst_review programmer programmer_review tester" {
		t.Errorf("steps %s: a step ran twice or was lost", got)
	}
	// The programmer's prompt was pasted once: its answer (an echo of what
	// it was asked) is the first prompt, not two.
	steps, _ := loop.ReadJournal(journal)
	if n := strings.Count(steps[2].Response, "Implement this plan"); n != 1 {
		t.Errorf("the programmer was asked %d times", n)
	}
}
