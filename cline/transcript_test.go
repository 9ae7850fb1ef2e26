package cline_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/cline"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestTranscript reads the user messages on real screens of Cline 3.0.65
// (testdata/submitted/manifest.json says what each must read): each
// dispatch as its fold, the same prompt dispatched twice in a row, the
// prompt taken twice (the second copy whole under the fold), a
// placeholder after it, a placeholder left in the composer. Cline draws
// its history on the screen only (40 lines here). Each of its ordinary
// screens tells.
func TestTranscript(t *testing.T) {
	testkit.CheckTranscript(t, cline.Provider(), testkit.EveryScreenTells)
}
