package copilot_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/copilot"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestSubmitted reads the user messages on real screens of Copilot CLI
// 1.0.102 after a dispatch (e2e TestEndCheckProbe): the prompt taken once,
// the test itself submitting it a second time, or a paste placeholder
// after it. Copilot CLI draws its history on the screen only (40 lines
// here): a prompt taller than that shows its end alone, and the check
// cannot tell.
func TestSubmitted(t *testing.T) {
	testkit.CheckSubmissions(t, copilot.Provider(), []testkit.SubmittedCase{
		{File: "short-once"},
		{File: "short-twice", Problem: "2 user messages since the prompt was submitted"},
		{File: "lines-4k-once", CannotTell: true},
		{File: "lines-4k-twice", CannotTell: true},
		{File: "short-once", Prompt: "short-twice", CannotTell: true},
		{File: "short-twice", Prompt: "short-once", CannotTell: true},
	})
}

// TestOrdinaryScreensAreTakenOnce reads every real screen of testdata
// against the last prompt it shows: each tells it taken whole and once.
func TestOrdinaryScreensAreTakenOnce(t *testing.T) {
	if told, read := testkit.CheckOrdinaryScreens(t, copilot.Provider()); told != read || read == 0 {
		t.Errorf("%d of %d screens tell the prompt taken whole and once, want all", told, read)
	}
}
