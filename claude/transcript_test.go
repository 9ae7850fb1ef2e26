package claude_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestSubmitted reads the user messages on real screens of Claude Code
// 2.1.330 after a dispatch (e2e TestEndCheckProbe). Claude Code draws its
// history on the screen only: testkit.ScreenOnlySubmissions, and another
// dispatch's prompt against the screen that submitted a prompt twice.
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, claude.Provider(), testkit.ScreenOnlySubmissions(
		testkit.SubmittedCase{File: "short-twice", Prompt: "short-once", CannotTell: true},
	))
}
