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

// ProbePasteCases are the readings every provider's captures of the
// paste probe must give: each prompt's "-whole" capture read against its
// own prompt is whole, and the 60 KB prompt's capture read against the
// 4 KB prompt is wrong (its fold, or its end, is another prompt's). The
// zero-width prompt is not among them: only Claude Code's captures have
// it (its releases before 2.1.315 ask for a review of it), and its test
// names it.
func ProbePasteCases() []PasteCase {
	var cases []PasteCase
	for _, p := range PastePrompts() {
		if p.Name == "zero-width" {
			continue
		}
		cases = append(cases, PasteCase{File: p.Name + "-whole", Prompt: p.Name, Want: handoff.PasteWhole})
	}
	return append(cases, PasteCase{File: "lines-60k-whole", Prompt: "lines-4k", Want: handoff.PasteWrong})
}

// PasteCapture is the provider package's real capture
// testdata/paste/file.txt; a missing one fails the test.
func PasteCapture(t *testing.T, file string) string {
	t.Helper()
	capture, err := os.ReadFile(filepath.Join("testdata", "paste", file+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(capture)
}

// CheckPastes reads with pr, in the provider package's own test, the
// captures of ProbePasteCases and then the provider's own cases: Enter may
// only follow a whole reading, and a fold whose size is another prompt's
// is wrong.
func CheckPastes(t *testing.T, pr handoff.PasteReader, own []PasteCase) {
	t.Helper()
	for _, c := range append(ProbePasteCases(), own...) {
		if got, seen := pr.Pasted(PasteCapture(t, c.File), PastePromptText(c.Prompt)); got != c.Want {
			t.Errorf("%s read against the %s prompt: %s (%q), want %s", c.File, c.Prompt, got, seen, c.Want)
		}
	}
}

// SubmittedCase is one real capture of an agent's screen after a dispatch
// (testdata/submitted/File.txt of the provider's package, taken by e2e
// TestEndCheckProbe) read against the text that dispatch pasted
// (File.prompt, or Prompt's when set: another dispatch's), and what the
// check at the end must make of it: a problem quoting Problem (fail), none
// with the screen able to tell (Done, taken whole and once), or none
// because it cannot tell (CannotTell).
type SubmittedCase struct {
	File, Prompt string
	// Problem is a part of the problem the reading must report; "" for
	// none.
	Problem    string
	CannotTell bool
}

// ScreenOnlySubmissions are the cases of e2e TestEndCheckProbe's captures
// of a CLI that draws its history on the screen only (40 lines in the
// probe), then the provider's own: the prompt taken once, submitted a
// second time by the test itself, a paste placeholder after it; a prompt
// taller than the screen shows its end alone, and the check cannot tell,
// nor over another dispatch's prompt, whose receipt is not on the screen.
func ScreenOnlySubmissions(own ...SubmittedCase) []SubmittedCase {
	return append([]SubmittedCase{
		{File: "short-once"},
		{File: "short-twice", Problem: "2 user messages since the prompt was submitted"},
		{File: "lines-4k-placeholder", Problem: `another text ("[Pasted Content 4150 chars]`},
		{File: "lines-4k-once", CannotTell: true},
		{File: "line-20000-once", CannotTell: true},
		{File: "lines-4k-twice", CannotTell: true},
		{File: "short-once", Prompt: "short-twice", CannotTell: true},
	}, own...)
}

// CheckSubmissions reads each case's capture with sr, in the provider
// package's own test.
func CheckSubmissions(t *testing.T, sr handoff.SubmissionReader, cases []SubmittedCase) {
	t.Helper()
	for _, c := range cases {
		capture, err := os.ReadFile(filepath.Join("testdata", "submitted", c.File+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		prompt := c.File
		if c.Prompt != "" {
			prompt = c.Prompt
		}
		text, err := os.ReadFile(filepath.Join("testdata", "submitted", prompt+".prompt"))
		if err != nil {
			t.Fatal(err)
		}
		sub := sr.Submitted(string(capture), string(text))
		problem, tell := sub.Problem(), sub.Tell == "" && (len(sub.Messages) != 1 || sub.Messages[0].Taken != handoff.TakenUnknown)
		switch {
		case c.Problem != "" && !strings.Contains(problem, c.Problem):
			t.Errorf("%s (the %s prompt): problem %q, want one saying %q; read %+v", c.File, prompt, problem, c.Problem, sub)
		case c.Problem == "" && problem != "":
			t.Errorf("%s (the %s prompt): problem %q, want none; read %+v", c.File, prompt, problem, sub)
		case c.Problem == "" && tell == c.CannotTell:
			t.Errorf("%s (the %s prompt): can tell %v, want %v; read %+v", c.File, prompt, tell, !c.CannotTell, sub)
		}
	}
}
