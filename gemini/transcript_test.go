package gemini_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestSubmitted reads the user messages on real screens of Gemini CLI
// 0.61.0 after a dispatch (e2e TestEndCheckProbe): the prompt taken once,
// the test itself submitting it a second time, or a paste placeholder
// after it. Gemini CLI keeps its history in tmux's scrollback: a prompt
// taller than the pane is read whole.
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, gemini.Provider(), []testkit.SubmittedCase{
		{File: "short-once"},
		{File: "short-twice", Problem: "the prompt submitted 2 times"},
		{File: "lines-4k-once"},
		{File: "lines-4k-twice", Problem: "the prompt submitted 2 times"},
		{File: "lines-4k-placeholder", Problem: `another text ("[Pasted Content 4150 chars]")`},
		{File: "line-20000-once"},
		// Another dispatch's prompt (its receipt) is not on the screen.
		{File: "short-once", Prompt: "short-twice", CannotTell: true},
	})
}

// TestOrdinaryScreensAreTakenOnce reads every real screen of testdata
// against the last prompt it shows: none is read as taken otherwise. Those
// drawn with NO_COLOR (a prompt at column 0 among rules, which the reader
// leaves alone) and those of a turn still waiting for its first byte (the
// prompt with nothing under it but the busy line) cannot tell.
func TestOrdinaryScreensAreTakenOnce(t *testing.T) {
	told, read := testkit.CheckOrdinaryScreens(t, gemini.Provider())
	t.Logf("%d of %d screens tell the prompt taken whole and once", told, read)
	if told == 0 {
		t.Error("no screen tells")
	}
}
