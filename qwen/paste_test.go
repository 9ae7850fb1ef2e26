package qwen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): Enter
// may only follow a whole reading, and a fold whose size is another
// prompt's is wrong.
func TestReadPaste(t *testing.T) {
	var pr handoff.PasteReader = qwen.Provider()
	for _, c := range []struct {
		file, prompt string
		want         handoff.Paste
	}{
		{"wide-line-whole", "wide-line", handoff.PasteWhole},
		{"short-whole", "short", handoff.PasteWhole},
		{"three-lines-whole", "three-lines", handoff.PasteWhole},
		{"line-20000-not-drawn", "line-20000", handoff.PasteArriving},
		{"line-20000-pasting", "line-20000", handoff.PasteArriving},
		{"line-20000-whole", "line-20000", handoff.PasteWhole},
		{"lines-4k-whole", "lines-4k", handoff.PasteWhole},
		{"lines-60k-pasting", "lines-60k", handoff.PasteArriving},
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

// In the approval modes that ask (default, auto-edit) Qwen Code marks its
// composer with ">" instead of "*": the mark is not the prompt. The real
// capture (--yolo) with the other mark, as the default mode draws it.
func TestReadPasteBehindTheAskingModesMark(t *testing.T) {
	var pr handoff.PasteReader = qwen.Provider()
	capture, err := os.ReadFile(filepath.Join("testdata", "paste", "lines-4k-whole.txt"))
	if err != nil {
		t.Fatal(err)
	}
	asking := strings.Replace(string(capture), "* [Pasted Content", "> [Pasted Content", 1)
	if got, seen := pr.Pasted(asking, testkit.PastePromptText("lines-4k")); got != handoff.PasteWhole {
		t.Errorf("%s (%q), want whole", got, seen)
	}
}
