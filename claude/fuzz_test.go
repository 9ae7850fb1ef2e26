package claude

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, dialogs, spinners,
// retries and replies. None of it may change how the turn below is read.
func scrollback() string {
	return strings.Repeat("❯ an old question\n● API Error: 500 Internal server error.\n"+
		"✶ Computing… (3s · esc to interrupt)\n ❯ 1. Yes\n Esc to cancel · Tab to amend\n"+
		rule+"\n❯\u00a0\n"+rule+"\n  ⏵⏵ bypass permissions on · esc to interrupt\n"+
		"✻ API error · retrying in 1s · attempt 1/2\n● an old answer\n✻ Brewed for 2s\n\x1b]0;unterminated\n", 40)
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
	conformance.FuzzScreens(f, Provider(), realDir, scrollback(), func(s Signals) (int, int) { return s.LinesScanned, s.LastUserLine },
		"❯ hi\n\n● Hello\n✻ Brewed for 1s\n"+rule+"\n❯\u00a0\n"+rule+"\n  ⏵⏵ bypass permissions on\n", "✳ Claude Code",
		"❯ hi\n✶ Computing…\n"+rule+"\n❯\u00a0\n"+rule+"\n  esc to interrupt\n", "⠋ x",
		" Do you want to proceed?\n ❯ 1. Yes\n   2. No\n Esc to cancel · Tab to amend\n", "✳ Claude Code")
}
