package qwen_test

import (
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): the
// probe's captures every provider has, then this CLI's own.
func TestReadPaste(t *testing.T) {
	testkit.CheckPastes(t, qwen.Provider(), []testkit.PasteCase{
		{File: "line-20000-not-drawn", Prompt: "line-20000", Want: handoff.PasteArriving},
		{File: "line-20000-pasting", Prompt: "line-20000", Want: handoff.PasteArriving},
		{File: "lines-60k-pasting", Prompt: "lines-60k", Want: handoff.PasteArriving},
		{File: "line-20000-whole", Prompt: "lines-60k", Want: handoff.PasteWrong},
	})
}

// In the approval modes that ask (default, auto-edit) Qwen Code marks its
// composer with ">" instead of "*": the mark is not the prompt. The real
// capture (--yolo) with the other mark, as the default mode draws it.
func TestReadPasteBehindTheAskingModesMark(t *testing.T) {
	var pr handoff.PasteReader = qwen.Provider()
	capture := testkit.PasteCapture(t, "lines-4k-whole")
	asking := strings.Replace(capture, "* [Pasted Content", "> [Pasted Content", 1)
	if got, seen := pr.Pasted(asking, testkit.PastePromptText("lines-4k")); got != handoff.PasteWhole {
		t.Errorf("%s (%q), want whole", got, seen)
	}
}
