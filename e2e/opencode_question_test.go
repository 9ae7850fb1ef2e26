package e2e

import (
	"context"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
)

// The model asks the user a question (OpenCode's question tool) in the
// middle of a dispatch: the dispatch waits for the answer rather than
// ending (it read the question as idle once: exit 5, no response file);
// the user picks an option in the pane, the model gets it and writes the
// response file, and the dispatch returns it.
func TestRealOpenCodeQuestionWaitsForTheUser(t *testing.T) {
	parallel(t)
	realopencode.CLI.Require(t)
	r := newOpenCodeRigAt(t, realopencode.Options{}, t.TempDir())
	r.model.Script(fakemodel.ToolUse("question", map[string]any{"questions": []any{map[string]any{
		"header": "Colour", "question": "Which colour should the button be?",
		"options": []any{
			map[string]any{"label": "Blue", "description": "The house colour."},
			map[string]any{"label": "Green", "description": "The go colour."},
		},
	}}}, ""), fakemodel.WriteResponse(answer), fakemodel.Answer("Done."))
	cfg := nodeConfig(true)
	// The spec's default grace, and so startup window: beside two CPU
	// burners OpenCode drew no sign of the turn for over 16 s.
	cfg.IdleGrace = handoff.DefaultIdleGrace
	// The question stands a grace before the user answers, then the model
	// takes two more turns: on a loaded machine (a cold CI run's compiles
	// beside two burners) OpenCode took over 60 s, the e2e default, before
	// its first request reached the model. The timeout is not under test.
	cfg.ResponseTimeout = 3 * time.Minute
	var asked time.Time // the first poll that saw the question
	answered := false
	d := r.send("analyst", "Ask me which colour, then write the response.", cfg, func(p fsm.Poll) {
		if answered || p.Status != handoff.StatusWaitingUserAnswer {
			return
		}
		if asked.IsZero() {
			asked = p.At
		}
		// The user answers once the question has stood longer than the
		// idle grace: a wait that read it as idle would have ended.
		if p.At.Sub(asked) < cfg.IdleGrace+time.Second {
			return
		}
		answered = true
		if err := r.cli.Keys(context.Background(), "Enter"); err != nil {
			t.Errorf("answering: %v", err)
		}
	})
	if d.err != nil {
		r.fail("the dispatch ended without the answer: %v (statuses %v)", d.err, d.statuses())
	}
	if !answered {
		r.fail("the question was never read as waiting for the user (statuses %v)", d.statuses())
	}
	if d.res.Content != answer+"\n" {
		t.Fatalf("response %q, want %q", d.res.Content, answer+"\n")
	}
}
