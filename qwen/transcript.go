package qwen

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// transcript is how Qwen Code 0.24.4 shows the user's messages, tried on
// the real CLI (testdata/submitted): "> text" two columns in, the text
// whole (a folded paste is expanded, so a "[Pasted Content N chars]"
// there is the placeholder itself submitted), continuation lines four
// columns in; the next cell starts two columns in. Qwen Code draws its
// history in a viewport of the pane's height (no scrollback): a message
// taller than that shows only its end, and the check then cannot tell.
func transcript() screen.Transcript {
	return screen.Transcript{
		Start: func(ln screen.Line) (string, bool) {
			if !prompt(ln) {
				return "", false
			}
			return strings.TrimPrefix(ln.T, "> "), true
		},
		Ends:  func(ln screen.Line) bool { return ln.Indent <= 2 },
		Stop:  rule,
		Clean: unbar,
	}
}
