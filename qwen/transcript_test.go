package qwen_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// TestSubmitted reads the user messages on real screens of Qwen Code
// 0.24.4 after a dispatch: the prompt taken once (e2e TestEndCheckProbe),
// and the screen of e2e TestEndCheck where the test pasted the same
// prompt again during the turn and Qwen Code, steering, submitted its
// placeholder "[Pasted Content 777 chars]" as the message (the issue's
// very failure). Qwen Code draws its history in a viewport of the pane's
// height: another dispatch's prompt, not on it, cannot tell.
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, qwen.Provider(), []testkit.SubmittedCase{
		{File: "short-once"},
		// Qwen Code cuts the line "zero\u200bwidth space, \ufeffBOM and
		// word\u2060joiner" to "…word\u2060joi" (it counts the zero-width
		// characters as columns): taken once, shown altered, never a failure
		// (e2e TestDelivery's zero-width row).
		{File: "zero-width-once", CannotTell: true},
		{File: "short-twice-steered", Problem: `another text ("[Pasted Content 777 chars]")`},
		{File: "short-once", Prompt: "short-twice-steered", CannotTell: true},
		{File: "short-twice-steered", Prompt: "short-once", CannotTell: true},
	})
}
