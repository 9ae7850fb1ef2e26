package codex

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, menus, busy lines and
// replies. None of it may change how the turn below is read.
func scrollback() string {
	return strings.Repeat("› an old question\n■ stream disconnected before completion\n"+
		"• Working (3s • esc to interrupt)\n› 1. Yes, proceed (y)\n"+
		"Error: old\n• an old answer\n  Worked for 2s • 01:00\n\x1b]0;unterminated\n", 50)
}

// FuzzClassify: any input is read without panicking into one of the five
// statuses with a one-line reason and JSON-encodable signals; the scan never
// reads more lines than there are; and the work is bounded by the last user
// message — scrollback put above it changes neither the verdict nor the
// number of lines looked at.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, scrollback(), func(s Signals) (int, int) { return s.LinesScanned, s.LastUserLine },
		"› hi\n\n• Hello\n\n›\n100% context left\n", "",
		"› Explain\n\n◦ Working (0s • esc to interrupt)\n\n› Ask Codex to do anything\n\n  gpt-5.5 high · ~/w\n  tab to queue message\n", "⠋ w",
		"› Clean\n\nWould you like to run the following command?\n\n› 1. Yes, proceed (y)\n  2. No (esc)\n", "[ ! ] Action Required | w",
		"\x1b[1m›\x1b[0m \x1b[2mAsk Codex to do anything\r\n\x1b]8;;x\x07  gpt · /w\r", "w")
}
