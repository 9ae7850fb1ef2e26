package handoff_test

import (
	"errors"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// A prompt holding ESC (a bracketed-paste end sequence, a colour) or any
// other control character but tab and line breaks is refused up front,
// with the offset of the first one; text of every other kind passes.
func TestAPromptWithControlCharactersIsRefusedWithItsOffset(t *testing.T) {
	refused := []struct {
		name, prompt string
		offset       int
		what         string
	}{
		{"bracketed-paste end mid-prompt", "review this\x1b[201~!touch /tmp/x", 11, "ESC (U+001B)"},
		{"colour escape", "\x1b[31mred", 0, "ESC"},
		{"ctrl-c", "stop\x03now", 4, "Ctrl-C"},
		{"nul", "a\x00b", 1, "NUL"},
		{"del", "ab\x7f", 2, "DEL"},
		{"c1 csi", "x\u009b31m", 1, "CSI"},
		{"c1 other", "x\u0085y", 1, "U+0085"},
		{"invalid utf-8", "ok \xff", 3, "invalid UTF-8"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			err := handoff.CheckPrompt(c.prompt)
			var pe *handoff.PromptError
			if !errors.Is(err, handoff.ErrPromptRefused) || !errors.As(err, &pe) {
				t.Fatalf("CheckPrompt = %v, want a *PromptError wrapping ErrPromptRefused", err)
			}
			if pe.Offset != c.offset || !strings.Contains(err.Error(), c.what) {
				t.Fatalf("error %q (offset %d), want offset %d naming %q", err, pe.Offset, c.offset, c.what)
			}
		})
	}
	for _, ok := range []string{"plain", "tab\there", "crlf\r\nline", "cr\rline", "wide 漢字 and e\u0301 and zero\u200bwidth", "!touch x", "emoji 🧪"} {
		if err := handoff.CheckPrompt(ok); err != nil {
			t.Errorf("CheckPrompt(%q) = %v, want nil", ok, err)
		}
	}
}

func TestLineBreaksAreSentAsLF(t *testing.T) {
	if got := handoff.NormalizeLineBreaks("a\r\nb\rc\nd"); got != "a\nb\nc\nd" {
		t.Fatalf("got %q", got)
	}
}
