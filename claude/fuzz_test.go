package claude

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, dialogs, spinners,
// retries and replies. None of it may change how the turn below is read.
func scrollback() string {
	var b strings.Builder
	for range 40 {
		b.WriteString("❯ an old question\n● API Error: 500 Internal server error.\n")
		b.WriteString("✶ Computing… (3s · esc to interrupt)\n ❯ 1. Yes\n Esc to cancel · Tab to amend\n")
		b.WriteString(rule + "\n❯\u00a0\n" + rule + "\n  ⏵⏵ bypass permissions on · esc to interrupt\n")
		b.WriteString("✻ API error · retrying in 1s · attempt 1/2\n● an old answer\n✻ Brewed for 2s\n\x1b]0;unterminated\n")
	}
	return b.String()
}

// FuzzClassify: any input is read without panicking into one of the five
// statuses with a one-line reason and JSON-encodable signals; the scan never
// reads more lines than there are; an empty capture is an error; the
// extraction either finds a non-empty message or says there is none; and
// once the last prompt is found, scrollback put above the capture changes
// neither the verdict, nor the work done, nor the extracted message.
//
// The seed corpus is every real Claude Code screen of testdata/real-2.1.330
// plus the files in testdata/fuzz/FuzzClassify.
func FuzzClassify(f *testing.F) {
	f.Add("❯ hi\n\n● Hello\n✻ Brewed for 1s\n"+rule+"\n❯\u00a0\n"+rule+"\n  ⏵⏵ bypass permissions on\n", "✳ Claude Code")
	f.Add("❯ hi\n✶ Computing…\n"+rule+"\n❯\u00a0\n"+rule+"\n  esc to interrupt\n", "⠋ x")
	f.Add(" Do you want to proceed?\n ❯ 1. Yes\n   2. No\n Esc to cancel · Tab to amend\n", "✳ Claude Code")
	f.Add("", "")
	f.Add("\r\r\n\x1b[", "\xe2\xa0")
	conformance.AddScreens(f, realDir)

	old := scrollback()
	c := New()
	f.Fuzz(func(t *testing.T, capture, title string) {
		got := conformance.CheckClassification(t, c, capture, title, ErrNoAssistantMessage)
		sig, ok := got.Signals.(Signals)
		if !ok {
			t.Fatalf("signals are %T, want claude.Signals", got.Signals)
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
		// The verdict is decided below the last prompt: scrollback above it
		// changes neither the verdict nor the work done.
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
