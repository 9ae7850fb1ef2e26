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
	testkit.CheckPastes(t, pr, []testkit.PasteCase{
		{File: "wide-line-whole", Prompt: "wide-line", Want: handoff.PasteWhole},
		{File: "short-whole", Prompt: "short", Want: handoff.PasteWhole},
		{File: "three-lines-whole", Prompt: "three-lines", Want: handoff.PasteWhole},
		{File: "line-20000-not-drawn", Prompt: "line-20000", Want: handoff.PasteArriving},
		{File: "line-20000-pasting", Prompt: "line-20000", Want: handoff.PasteArriving},
		{File: "line-20000-whole", Prompt: "line-20000", Want: handoff.PasteWhole},
		{File: "lines-4k-whole", Prompt: "lines-4k", Want: handoff.PasteWhole},
		{File: "lines-60k-pasting", Prompt: "lines-60k", Want: handoff.PasteArriving},
		{File: "lines-60k-whole", Prompt: "lines-60k", Want: handoff.PasteWhole},
		{File: "lines-60k-whole", Prompt: "lines-4k", Want: handoff.PasteWrong},
		{File: "line-20000-whole", Prompt: "lines-60k", Want: handoff.PasteWrong},
	})
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
