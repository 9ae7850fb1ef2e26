package gemini_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): Enter
// may only follow a whole reading, and a fold whose size is another
// prompt's is wrong.
func TestReadPaste(t *testing.T) {
	var pr handoff.PasteReader = gemini.Provider()
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
		{"line-20000-whole", "lines-60k", handoff.PasteWrong},
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

// In a terminal with colour Gemini CLI draws its composer in a band of
// half blocks ("▄▄▄" above, "▀▀▀" below): the band is not the prompt. The
// screen is a real one (an empty composer, a COLORTERM terminal), with
// the fold Gemini CLI draws put in the composer's place.
func TestReadPasteInTheFramedComposer(t *testing.T) {
	var pr handoff.PasteReader = gemini.Provider()
	empty, err := os.ReadFile(filepath.Join("testdata", "paste", "framed-empty.txt"))
	if err != nil {
		t.Fatal(err)
	}
	prompt := testkit.PastePromptText("lines-4k")
	for _, c := range []struct {
		name string
		n    int
		want handoff.Paste
	}{
		{"its fold", screen.LineCount(prompt), handoff.PasteWhole},
		{"a fold of another size", screen.LineCount(prompt) + 1, handoff.PasteWrong},
	} {
		capture := strings.Replace(string(empty), "Type your message or @path/to/file", fmt.Sprintf("[Pasted Text: %d lines]", c.n), 1)
		if got, seen := pr.Pasted(capture, prompt); got != c.want {
			t.Errorf("%s: %s (%q), want %s", c.name, got, seen, c.want)
		}
	}
}
