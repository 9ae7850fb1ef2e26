package pi_test

import (
	"os"
	"path/filepath"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/pi"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): Enter
// may only follow a whole reading, and a fold whose size is another
// prompt's is wrong.
func TestReadPaste(t *testing.T) {
	var pr handoff.PasteReader = pi.Provider()
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
		// Pasted into a composer that held a draft: not the prompt alone.
		{"line-20000-beside-a-draft", "line-20000", handoff.PasteWrong},
		{"lines-4k-three-folds", "lines-4k", handoff.PasteWrong},
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
