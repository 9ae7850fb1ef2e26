package opencode_test

import (
	"os"
	"path/filepath"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/opencode"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): Enter
// may only follow a whole reading, and a fold whose size is another
// prompt's is wrong.
func TestReadPaste(t *testing.T) {
	var pr handoff.PasteReader = opencode.Provider()
	testkit.CheckPastes(t, pr, []testkit.PasteCase{
		{File: "wide-line-whole", Prompt: "wide-line", Want: handoff.PasteWhole},
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		{File: "short-whole", Prompt: "short", Want: handoff.PasteWhole},
		{File: "three-lines-whole", Prompt: "three-lines", Want: handoff.PasteWhole},
		{File: "line-20000-whole", Prompt: "line-20000", Want: handoff.PasteWhole},
		{File: "lines-4k-whole", Prompt: "lines-4k", Want: handoff.PasteWhole},
		{File: "lines-60k-whole", Prompt: "lines-60k", Want: handoff.PasteWhole},
		{File: "lines-60k-whole", Prompt: "lines-4k", Want: handoff.PasteWrong},
	})
}

// Line breaks at the prompt's ends (every dispatch's prompt ends with one)
// do not count as lines of OpenCode's fold.
func TestReadPasteDoesNotCountALastLineBreak(t *testing.T) {
	var pr handoff.PasteReader = opencode.Provider()
	capture, err := os.ReadFile(filepath.Join("testdata", "paste", "lines-4k-whole.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := testkit.PastePromptText("lines-4k")
	if got, seen := pr.Pasted(string(capture), "  \n\n  "+text+"\n"); got != handoff.PasteWhole {
		t.Errorf("the 72-line prompt between line breaks read as %s (%q), want whole", got, seen)
	}
	if got, _ := pr.Pasted(string(capture), text+"\nand a 73rd line"); got != handoff.PasteWrong {
		t.Errorf("a 73-line prompt read as %s, want wrong", got)
	}
}
