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
	})
}
