package claude_test

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): the
// probe's captures every provider has, then this CLI's own.
func TestReadPaste(t *testing.T) {
	testkit.CheckPastes(t, claude.Provider(), []testkit.PasteCase{
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		{File: "short-whole", Prompt: "three-lines", Want: handoff.PasteArriving},
		// Claude Code 2.1.312 (releases before 2.1.315) removes invisible
		// characters from a paste, and takes the first Enter as a review:
		// "Removed 3 invisible characters · review and press Enter to
		// send" above the composer, which still holds the prompt whole, so
		// the driver's second Enter sends it.
		{File: "zero-width-whole", Prompt: "zero-width", Want: handoff.PasteWhole},
		{File: "zero-width-review-after-enter", Prompt: "zero-width", Want: handoff.PasteWhole},
	})
}
