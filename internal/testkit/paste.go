package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// PastePrompt is one of the prompts each real CLI's paste captures were
// taken with (provider testdata/paste): the same text is read against
// the capture in the provider's ReadPaste tests.
type PastePrompt struct{ Name, Text string }

// PastePrompts are the shapes a CLI folds differently: short, a few
// lines, one 20000-character line, 4 KB and 60 KB of many lines.
func PastePrompts() []PastePrompt {
	var lines, big strings.Builder
	for i := 0; lines.Len() < 4<<10; i++ {
		fmt.Fprintf(&lines, "line %05d of a prompt of many lines: the quick brown fox\n", i)
	}
	for i := 0; big.Len() < 60<<10; i++ {
		fmt.Fprintf(&big, "line %05d of a long prompt: the quick brown fox jumps over the lazy dog\n", i)
	}
	return []PastePrompt{
		{"short", "Analyse the project briefly, please."},
		{"three-lines", "first line\nsecond line\nthird line"},
		{"line-20000", strings.Repeat("abcdefghij", 2000)},
		{"lines-4k", lines.String() + "the end of the many lines"},
		{"lines-60k", big.String() + "the end of the long prompt"},
		// Astral characters (emoji) count 2 in UTF-16 and 1 as code points:
		// which one a fold shows is the CLI's.
		{"wide-line", strings.Repeat("wide 漢字 🧪👩\u200d💻 e\u0301 ", 400) + "the end"},
		// Invisible characters: Claude Code before 2.1.315 removes them and
		// asks for a review ("Removed 3 invisible characters").
		{"zero-width", "zero\u200bwidth space, \ufeffBOM and word\u2060joiner"},
	}
}

// PastePromptText is the text of the named PastePrompt ("" if none).
func PastePromptText(name string) string {
	for _, p := range PastePrompts() {
		if p.Name == name {
			return p.Text
		}
	}
	return ""
}

// PasteCase is one real capture read against one prompt, and the reading
// the provider must give: the capture testdata/paste/File.txt of the
// provider's package, taken while PastePromptText(Prompt) was pasted (or
// read against another prompt, to prove a fold's size is checked).
type PasteCase struct {
	File, Prompt string
	Want         handoff.Paste
}

// CheckPastes reads each case's capture with pr, in the provider package's
// own test: Enter may only follow a whole reading, and a fold whose size
// is another prompt's is wrong.
func CheckPastes(t *testing.T, pr handoff.PasteReader, cases []PasteCase) {
	t.Helper()
	for _, c := range cases {
		capture, err := os.ReadFile(filepath.Join("testdata", "paste", c.File+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got, seen := pr.Pasted(string(capture), PastePromptText(c.Prompt)); got != c.Want {
			t.Errorf("%s read against the %s prompt: %s (%q), want %s", c.File, c.Prompt, got, seen, c.Want)
		}
	}
}
