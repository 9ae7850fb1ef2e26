package gemini_test

import (
	"fmt"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// TestReadPaste reads the composer on real captures taken while a
// prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe): the
// probe's captures every provider has, then this CLI's own.
func TestReadPaste(t *testing.T) {
	testkit.CheckPastes(t, gemini.Provider(), []testkit.PasteCase{
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		{File: "line-20000-whole", Prompt: "lines-60k", Want: handoff.PasteWrong},
	})
}

// In a terminal with colour Gemini CLI draws its composer in a band of
// half blocks ("▄▄▄" above, "▀▀▀" below): the band is not the prompt. The
// screen is a real one (an empty composer, a COLORTERM terminal), with
// the fold Gemini CLI draws put in the composer's place.
func TestReadPasteInTheFramedComposer(t *testing.T) {
	var pr handoff.PasteReader = gemini.Provider()
	empty := testkit.PasteCapture(t, "framed-empty")
	prompt := testkit.PastePromptText("lines-4k")
	for _, c := range []struct {
		name string
		n    int
		want handoff.Paste
	}{
		{"its fold", screen.LineCount(prompt), handoff.PasteWhole},
		{"a fold of another size", screen.LineCount(prompt) + 1, handoff.PasteWrong},
	} {
		capture := strings.Replace(empty, "Type your message or @path/to/file", fmt.Sprintf("[Pasted Text: %d lines]", c.n), 1)
		if got, seen := pr.Pasted(capture, prompt); got != c.want {
			t.Errorf("%s: %s (%q), want %s", c.name, got, seen, c.want)
		}
	}
}

// In the approval modes that ask (default, auto_edit) Gemini CLI marks its
// composer with ">" instead of "*", as it marks the prompts in the history
// above: the composer is read there too, its placeholder as empty (the
// real screens taken in those modes), a draft as held. The draft: the real
// capture (YOLO) with the other mark, as those modes draw it.
func TestReadDraftBehindTheAskingModesMark(t *testing.T) {
	testkit.CheckDrafts(t, gemini.Provider(), map[string]string{
		"testdata/real-0.61.0/*/completed-after-confirmation*.txt":   "",
		"testdata/real-0.61.0/*/*/completed-after-confirmation*.txt": "",
		"testdata/real-0.61.0/*/completed-draft*.txt":                "a draft that is not sent yet",
		"testdata/real-0.61.0/*/*/completed-draft*.txt":              "a draft that is not sent yet",
	})
	for _, c := range testkit.Captures(t, "testdata/real-0.61.0/*/completed-draft.plain.txt") {
		asking := strings.Replace(c.Text, " * a draft that is not sent yet", " > a draft that is not sent yet", 1)
		if asking == c.Text {
			t.Fatalf("%s: no draft behind '*'", c.File)
		}
		if got := gemini.Provider().Draft(asking); got != "a draft that is not sent yet" {
			t.Errorf("%s behind '>': draft %q", c.File, got)
		}
	}
}
