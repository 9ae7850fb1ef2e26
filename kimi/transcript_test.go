package kimi_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/kimi"
)

// TestSubmitted reads the user messages on real screens of Kimi Code
// 2.1.0 after a dispatch (e2e TestEndCheckProbe): the prompt taken once
// (short, a few lines, long lines of wide, astral and zero-width
// characters), the test itself submitting it a second time, or a paste
// placeholder after it. Kimi Code keeps its history in tmux's scrollback:
// a prompt taller than the pane is read whole.
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, kimi.Provider(), []testkit.SubmittedCase{
		{File: "short-once"},
		{File: "three-lines-once"},
		{File: "wide-line-once"},
		{File: "zero-width-once"},
		{File: "lines-4k-once"},
		{File: "line-20000-once"},
		{File: "short-twice", Problem: "the prompt submitted 2 times"},
		{File: "lines-4k-twice", Problem: "the prompt submitted 2 times"},
		{File: "lines-4k-placeholder", Problem: `another text ("[Pasted Content 4150 chars]")`},
		// Another dispatch's prompt (its receipt) is not on the screen.
		{File: "short-once", Prompt: "short-twice", CannotTell: true},
	})
}

// TestOrdinaryScreensAreTakenOnce reads every real screen of testdata
// against the last prompt it shows: each tells it taken whole and once.
func TestOrdinaryScreensAreTakenOnce(t *testing.T) {
	if told, read := testkit.CheckOrdinaryScreens(t, kimi.Provider()); told != read || read == 0 {
		t.Errorf("%d of %d screens tell the prompt taken whole and once, want all", told, read)
	}
}
