package gemini

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, dialogs, busy lines
// and replies. None of it may change how the turn below is read.
func scrollback() string {
	var b strings.Builder
	for range 40 {
		b.WriteString(cat(prompt("an old question"), ls("✕ [API Error: old]", " ⠼ Thinking... (esc to cancel, 1s)",
			"  Queued (press ↑ to edit):", "╭────╮", "│ ● 1. Allow once │", "╰────╯", "✦ an old answer", "\x1b]0;unterminated")))
	}
	return b.String()
}

// FuzzClassify: any input is read without panicking into one of the five
// statuses with a one-line reason and JSON-encodable signals; the scan never
// reads more lines than there are; an error has a detail; the extraction
// either finds a non-empty message or says there is none; and once the
// last prompt is found, scrollback put above the capture changes neither
// the verdict, nor the work done, nor the extracted message.
//
// The seed corpus is every real Gemini CLI screen of testdata/real-0.61.0
// plus the files in testdata/fuzz/FuzzClassify.
func FuzzClassify(f *testing.F) {
	f.Add(cat(prompt("hi"), ls("✦ Hello"), chrome(idleStatus, placeholder)), ready)
	f.Add(cat(prompt("hi"), chrome(busyStatus, placeholder)), working)
	f.Add(cat(prompt("hi"), ls("╭──╮", "│ ● 1. Allow once │", "╰──╯")), "✋  Action Required (work)")
	f.Add("", "")
	f.Add("\r\r\n\x1b[", "\xe2\xa0")
	conformance.AddScreens(f, realDir)

	old := scrollback()
	c := New()
	f.Fuzz(func(t *testing.T, capture, title string) {
		got := conformance.CheckClassification(t, c, capture, title, ErrNoAssistantMessage)
		sig, ok := got.Signals.(Signals)
		if !ok {
			t.Fatalf("signals are %T, want gemini.Signals", got.Signals)
		}
		if lines := strings.Count(capture, "\n") + strings.Count(capture, "\r") + 1; sig.LinesScanned > lines {
			t.Fatalf("scanned %d lines of a %d-line capture", sig.LinesScanned, lines)
		}
		if (got.Status == handoff.StatusError) != (got.Detail != "" || got.Reason == ReasonEmpty) {
			t.Fatalf("status %s with detail %q", got.Status, got.Detail)
		}
		msg, err := ExtractLastMessage(capture)
		if sig.LastUserLine == 0 {
			return
		}
		more := c.Classify(old+capture, title)
		moreSig := more.Signals.(Signals)
		if more.Status != got.Status || moreSig.LinesScanned != sig.LinesScanned {
			t.Fatalf("with scrollback above: %q after %d lines; alone: %q after %d lines",
				more.Status, moreSig.LinesScanned, got.Status, sig.LinesScanned)
		}
		moreMsg, moreErr := ExtractLastMessage(old + capture)
		if moreMsg != msg || (moreErr == nil) != (err == nil) {
			t.Fatalf("with scrollback above, the last message changed: %q (%v) vs %q (%v)", moreMsg, moreErr, msg, err)
		}
	})
}
