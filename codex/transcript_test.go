package codex_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestSubmitted reads the user messages on real screens of Codex 0.169.0
// after a dispatch (e2e TestEndCheckProbe): the prompt taken once, the
// test itself submitting it a second time, or a paste placeholder after
// it. Codex draws its history on the screen only (40 lines here): a
// prompt taller than that shows its end alone, and the check cannot tell.
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, codex.Provider(), []testkit.SubmittedCase{
		{File: "short-once"},
		{File: "short-twice", Problem: "2 user messages since the prompt was submitted"},
		// Only the first copy's last three lines are on the screen: they
		// hold its receipt.
		{File: "short-twice-three-lines", Problem: "2 user messages since the prompt was submitted"},
		{File: "lines-4k-placeholder", Problem: `another text ("[Pasted Content 4150 chars]`},
		{File: "lines-4k-once", CannotTell: true},
		{File: "line-20000-once", CannotTell: true},
		{File: "lines-4k-twice", CannotTell: true},
		{File: "short-once", Prompt: "short-twice", CannotTell: true},
	})
}
