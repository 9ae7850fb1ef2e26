package pi_test

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/pi"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): the
// probe's captures every provider has, then this CLI's own.
func TestReadPaste(t *testing.T) {
	testkit.CheckPastes(t, pi.Provider(), []testkit.PasteCase{
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		// Pasted into a composer that held a draft: not the prompt alone.
		{File: "line-20000-beside-a-draft", Prompt: "line-20000", Want: handoff.PasteWrong},
		{File: "lines-4k-three-folds", Prompt: "lines-4k", Want: handoff.PasteWrong},
	})
}
