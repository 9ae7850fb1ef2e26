package simagent

import (
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
)

// The simulated agent is only useful if the Codex classifier reads its
// screens the way it reads the real Codex 0.169: each phase of a turn,
// rendered and classified.
func TestCodexClassifierReadsEveryPhaseOfATurn(t *testing.T) {
	c := codex.Provider()
	now := time.Now()
	classify := func(s Screen) handoff.Status {
		return c.Classify(strings.Join(s.Render(now, 40, 100), "\n")+"\n", s.Title(now)).Status
	}
	fresh := Screen{Model: "sim-model", Effort: "medium", Cwd: "/tmp/work dir", Transcript: banner(Options{Scenario: ScenarioNormal, Model: "sim-model", Effort: "medium", Cwd: "/tmp/work dir"})}
	if got := classify(fresh); got != handoff.StatusIdle {
		t.Errorf("fresh start: %s, want idle", got)
	}
	prev := fresh
	prev.Transcript = append(append([]string(nil), fresh.Transcript...),
		"", "› Say hello", "", "• Hello! Ready for the next task.", "", "  Worked for 1s • 05:00")
	if got := classify(prev); got != handoff.StatusCompleted {
		t.Errorf("previous turn finished (the stale screen of the startup race): %s, want completed", got)
	}
	draft := prev
	draft.Draft = "a pasted prompt\nwith two lines"
	if got := classify(draft); !got.Quiet() {
		t.Errorf("a pasted draft not yet submitted: %s, want idle/completed", got)
	}

	prompt := handoff.WithInstruction("Summarise the repo", "/tmp/work dir/.tmp/agent-responses/analyst_summary.md", testReceipt)
	working := prev
	working.Transcript = append(append([]string(nil), prev.Transcript...), "")
	working.Transcript = append(working.Transcript, quoteLines("› ", prompt, 4)...)
	working.Busy, working.Indicator, working.Since = true, "Working", now.Add(-2*time.Second)
	if got := classify(working); got != handoff.StatusProcessing {
		t.Errorf("working: %s, want processing", got)
	}

	plan := Plan(Options{Scenario: ScenarioNormal}, prompt)
	asking := working
	asking.Indicator = ""
	asking.Menu = ApprovalMenu(plan.Heredoc)
	if got := classify(asking); got != handoff.StatusWaitingUserAnswer {
		t.Errorf("approval menu (scenario asks): %s, want waiting_user_answer", got)
	}

	streaming := working
	streaming.Indicator = ""
	streaming.Transcript = append(append([]string(nil), working.Transcript...),
		"", "• Ran "+plan.Heredoc, "  └ (no output)", "", "• Done. I wrote")
	if got := classify(streaming); got != handoff.StatusProcessing {
		t.Errorf("streaming (spinner title only): %s, want processing", got)
	}

	done := streaming
	done.Busy = false
	done.Transcript = append(append([]string(nil), streaming.Transcript[:len(streaming.Transcript)-1]...),
		"• "+plan.Reply, "", "  Worked for 4s • 05:01")
	if got := classify(done); got != handoff.StatusCompleted {
		t.Errorf("finished turn: %s, want completed", got)
	}
	msg, err := c.LastMessage(strings.Join(done.Render(now, 40, 100), "\n"))
	if err != nil || msg != plan.Reply {
		t.Errorf("last message %q, %v; want the reply %q", msg, err, plan.Reply)
	}
}
