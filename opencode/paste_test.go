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
	for _, c := range []struct {
		file, prompt string
		want         handoff.Paste
	}{
		{"wide-line-whole", "wide-line", handoff.PasteWhole},
		{"short-not-drawn", "short", handoff.PasteArriving},
		{"short-whole", "short", handoff.PasteWhole},
		{"three-lines-whole", "three-lines", handoff.PasteWhole},
		{"line-20000-whole", "line-20000", handoff.PasteWhole},
		{"lines-4k-whole", "lines-4k", handoff.PasteWhole},
		{"lines-60k-whole", "lines-60k", handoff.PasteWhole},
		{"lines-60k-whole", "lines-4k", handoff.PasteWrong},
	} {
		capture, err := os.ReadFile(filepath.Join("testdata", "paste", c.file+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		got, seen := pr.Pasted(string(capture), testkit.PastePromptText(c.prompt))
		if got != c.want {
			t.Errorf("%s read against the %s prompt: %s (%q), want %s", c.file, c.prompt, got, seen, c.want)
		}
	}
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
