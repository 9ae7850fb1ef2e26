package cline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

func readScreen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestComposerScreens: '/' typed or pasted first is a command; '!' and a
// '/' after the lead line stay a message (real screens of Cline 3.0.65).
func TestComposerScreens(t *testing.T) {
	conformance.CheckComposer(t, Provider(), filepath.Join("testdata", "composer"), "/")
}

// TestReadPaste reads real composers after a paste: the fold with the
// prompt's own line count, a text shown whole, a line longer than the pane,
// and what must not be taken for the prompt.
func TestReadPaste(t *testing.T) {
	six := "line one\nline two\nline three\nline four\nline five\nline six\n"
	long := strings.Repeat("abcdefghij", 2000)
	wrapped := strings.Repeat(strings.Repeat("z", 99)+"\n", 650) + "LAST"
	for _, tc := range []struct {
		screen, text string
		want         handoff.Paste
	}{
		{"composer/plain-folded-paste.txt", six, handoff.PasteWhole},
		{"composer/plain-folded-paste.txt", six + "line seven", handoff.PasteWrong},
		{"composer/plain-folded-paste.txt", strings.TrimSuffix(six, "\n"), handoff.PasteWhole},
		{"composer/plain-text.txt", "Fix the bug in the parser.\nThen run the tests.", handoff.PasteWhole},
		{"composer/plain-text.txt", "Fix the bug in the parser.\nThen run the tests.\nAnd more.", handoff.PasteArriving},
		{"composer/plain-led-slash.txt", "Message:\n/touch x", handoff.PasteWhole},
		{"paste-long-line.txt", long, handoff.PasteWhole},
		{"paste-fold-wrapped.txt", wrapped, handoff.PasteWhole},
		{"paste-two-folds.txt", "a\nb\nc\nd\ne", handoff.PasteWrong},
		{"composer/shell-slash-typed.txt", "anything", handoff.PasteArriving},
	} {
		got, seen := readPaste(readScreen(t, tc.screen), tc.text)
		if got != tc.want {
			t.Errorf("%s, %d bytes: %v (%q), want %v", tc.screen, len(tc.text), got, seen, tc.want)
		}
	}
	if got, _ := readPaste("", "x"); got != handoff.PasteUnread {
		t.Errorf("an empty screen: %v, want unread", got)
	}
}

// TestPastedLines: Cline counts every CR and LF as a line break, a last LF
// as none (tried on the real CLI).
func TestPastedLines(t *testing.T) {
	for text, want := range map[string]int{"a\nb\nc\nd\ne": 5, "a\nb\nc\nd\ne\n": 5, "a\nb\nc\nd\ne\n\n": 6, "\n\na\nb\nc\nd\ne": 7, "a\r\nb\r\nc\r\nd\r\ne": 9} {
		if got := pastedLines(text); got != want {
			t.Errorf("%q: %d, want %d", text, got, want)
		}
	}
}

// TestClearKeys: Ctrl-C empties a composer with text; on an empty one it
// would quit Cline, so nothing is pressed.
func TestClearKeys(t *testing.T) {
	if got := clearKeys(readScreen(t, "composer/shell-slash-typed.txt")); len(got) == 0 || got[0] != "C-c" || slices.Contains(got[1:], "C-c") {
		t.Errorf("a composer with text: %q, want one C-c first", got)
	}
	empty := conformance.Capture([]string{" ❯ hi", " * Hello."}, chrome(""))
	if got := clearKeys(empty); got != nil {
		t.Errorf("an empty composer: %q, want none", got)
	}
	if got := readDraft(readScreen(t, "composer/plain-text.txt")); got != "Fix the bug in the parser." {
		t.Errorf("draft %q", got)
	}
}
