package cline_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/cline"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestSubmitted reads the user messages on real screens of Cline 3.0.65
// after a dispatch (e2e TestEndCheckProbe): the prompt taken once (its
// fold), the test itself submitting it a second time (shown whole under
// the fold), or a paste placeholder after it. Cline draws its history on
// the screen only (40 lines here).
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, cline.Provider(), []testkit.SubmittedCase{
		{File: "short-once"},
		{File: "short-twice", Problem: "the prompt submitted 2 times"},
		{File: "lines-4k-once"},
		{File: "line-20000-once"},
		{File: "lines-4k-placeholder", Problem: `another text ("[Pasted Content 4150 chars]")`},
		// The placeholder typed but its Enter lost: it stays in the
		// composer, which is no message.
		{File: "lines-4k-placeholder-unsent"},
		// The second copy, shown whole, is taller than the screen: its end
		// is cut off by the tool call under it, its start by the screen.
		{File: "lines-4k-twice", CannotTell: true},
		// A fold of the same size whose first words are another prompt's.
		{File: "short-once", Prompt: "short-twice", CannotTell: true},
		{File: "lines-4k-once", Prompt: "line-20000-once", CannotTell: true},
	})
}

// TestOrdinaryScreensAreTakenOnce reads every real screen of testdata
// against the last prompt it shows: each tells it taken whole and once.
func TestOrdinaryScreensAreTakenOnce(t *testing.T) {
	if told, read := testkit.CheckOrdinaryScreens(t, cline.Provider()); told != read || read == 0 {
		t.Errorf("%d of %d screens tell the prompt taken whole and once, want all", told, read)
	}
}
