package codex_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestSubmitted reads the user messages on real screens of Codex 0.169.0
// after a dispatch (e2e TestEndCheckProbe). Codex draws its history on the
// screen only: testkit.ScreenOnlySubmissions, and a second copy of which
// only the last three lines are on the screen: they hold its receipt.
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, codex.Provider(), testkit.ScreenOnlySubmissions(
		testkit.SubmittedCase{File: "short-twice-three-lines", Problem: "2 user messages since the prompt was submitted"},
	))
}
