package copilot

import (
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// A composer after a paste, as Copilot CLI 1.0.102 draws it.
func pasted(lines ...string) string {
	return conformance.Capture(chrome(" Interactive · Manual Approval · @ files · # issues", strings.Join(lines, "\n")))
}

func TestReadPaste(t *testing.T) {
	long := strings.Repeat("A long pasted prompt line.\n", 12)
	tests := []struct {
		name, capture, text string
		want                handoff.Paste
	}{
		{"the text's end shown", pasted("❯ line one", "  line two"), "line one\nline two", handoff.PasteWhole},
		{"a long line wrapped", pasted("❯ xxxxxxxxxx", "  xxxxxx"), strings.Repeat("x", 16), handoff.PasteWhole},
		{"wrapped at a blank", pasted("❯ the quick brown", "  fox jumps"), "the quick brown fox jumps", handoff.PasteWhole},
		{"a tab drawn as blanks", pasted("❯ led by a tab, then", "      two    tabs"), "led by a tab, then\n\t\ttwo\ttabs", handoff.PasteWhole},
		{"the fold of the prompt's lines", pasted("❯ [Paste #1 - 12 lines]"), long, handoff.PasteWhole},
		{"a fold of another size", pasted("❯ [Paste #1 - 11 lines]"), long, handoff.PasteWrong},
		{"two folds", pasted("❯ [Paste #1 - 12 lines]", "  [Paste #2 - 12 lines]"), long, handoff.PasteWrong},
		{"other text", pasted("❯ something else"), "line one", handoff.PasteWrong},
		{"a paste over 20 KB saved to a file", pasted("❯ [Saved pasted content to workspace (64.2 KB) id=1]"), strings.Repeat("x", 64<<10), handoff.PasteWrong},
		{"nothing yet", pasted("❯"), "line one", handoff.PasteArriving},
		{"no composer", conformance.Capture(dialog()), "line one", handoff.PasteUnread},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, seen := Provider().Pasted(tc.capture, tc.text); got != tc.want {
				t.Errorf("Pasted = %v (%q), want %v", got, seen, tc.want)
			}
		})
	}
}

// The clear keys: Ctrl-U and Backspace per line (Ctrl-C would arm its
// exit), Backspace alone to leave shell mode, nothing for an empty
// composer (two Escapes there open the rewind).
func TestClearKeys(t *testing.T) {
	p := Provider()
	for _, tc := range []struct {
		name, capture string
		want          []string
	}{
		{"shell mode with text", pasted("! echo hi"), []string{"C-u", "BSpace"}},
		{"shell mode, two lines", pasted("! echo hi", "  second"), []string{"C-u", "BSpace", "C-u", "BSpace"}},
		{"shell mode, empty", pasted("! Execute shell command"), []string{"BSpace"}},
		{"empty", pasted("❯"), nil},
		{"a dialog", conformance.Capture(dialog()), nil},
	} {
		if got := p.ClearKeys(tc.capture); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := p.Draft(pasted("❯ a draft", "  more")); got != "a draft" {
		t.Errorf("Draft = %q", got)
	}
	if got := p.Mode(pasted("! echo hi")); got == "" {
		t.Error("shell mode not read")
	}
}
