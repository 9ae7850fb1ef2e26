package kimi

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// userMark opens a user message in Kimi Code's history.
const userMark = "✨ "

// transcript is how Kimi Code 2.1.0 shows the user's messages, tried on
// the real CLI (testdata/submitted): each starts one column in with "✨
// ", its text whole (a folded "[paste #1 +13 lines]" is expanded),
// continuation lines four columns in; the next cell starts one column in
// ("● text", "● Ran a command …", the composer's box "╭") or three ("Error:
// …", the notes under the welcome box). The history stays in tmux's
// scrollback. The composer ("│ > draft" in its box) is no message.
func transcript() screen.Transcript {
	return screen.Transcript{
		Start: screen.Marked(1, userMark),
		Ends:  func(ln screen.Line) bool { return ln.Indent <= 3 },
	}
}
