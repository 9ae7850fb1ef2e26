package copilot

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// transcript is how Copilot CLI 1.0.102 shows the user's messages, tried
// on the real CLI (testdata/submitted): each starts one column in with "❯
// ", the time at its right ("❯ Review the change, please.   20:18"), its
// text whole (a folded "[Paste #1 - 40 lines]" is expanded; Copilot wraps
// long lines itself), continuation lines three columns in; the next cell
// starts one column in ("● text", "$ Shell …", "✗ 400 …") and the folder
// line over the composer too. The composer's rule ends the transcript; the
// scrollbar in the last column is dropped, and so is the row of tabs at
// the top ("[Current]  Sessions   Issues …"), over a message whose start
// it hides. Copilot CLI draws its history on the screen only (no tmux
// scrollback): a prompt taller than the pane shows its end alone, and the
// check cannot tell.
func transcript() screen.Transcript {
	marked := screen.Marked(1, "❯ ")
	return screen.Transcript{
		Start: func(ln screen.Line) (string, bool) {
			text, ok := marked(ln)
			return promptText(text), ok
		},
		Ends: func(ln screen.Line) bool { return ln.Indent <= 1 },
		Stop: rule,
		Clean: func(ln screen.Line) screen.Line {
			if strings.HasPrefix(ln.T, "[Current]") && strings.Contains(ln.T, "Sessions") {
				return screen.Line{Start: ln.Start}
			}
			return unbar(ln)
		},
	}
}
