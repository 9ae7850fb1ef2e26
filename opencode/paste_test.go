package opencode_test

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/opencode"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): the
// probe's captures every provider has, then this CLI's own.
func TestReadPaste(t *testing.T) {
	testkit.CheckPastes(t, opencode.Provider(), []testkit.PasteCase{
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
	})
}

// Line breaks at the prompt's ends (every dispatch's prompt ends with one)
// do not count as lines of OpenCode's fold.
func TestReadPasteDoesNotCountALastLineBreak(t *testing.T) {
	var pr handoff.PasteReader = opencode.Provider()
	capture := testkit.PasteCapture(t, "lines-4k-whole")
	text := testkit.PastePromptText("lines-4k")
	if got, seen := pr.Pasted(capture, "  \n\n  "+text+"\n"); got != handoff.PasteWhole {
		t.Errorf("the 72-line prompt between line breaks read as %s (%q), want whole", got, seen)
	}
	if got, _ := pr.Pasted(capture, text+"\nand a 73rd line"); got != handoff.PasteWrong {
		t.Errorf("a 73-line prompt read as %s, want wrong", got)
	}
}
