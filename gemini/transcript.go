package gemini

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// transcript is how Gemini CLI 0.61.0 shows the user's messages, tried on
// the real CLI (testdata/submitted): each starts one column in with "> ",
// its text whole (a folded "[Pasted Text: 16 lines]" is expanded),
// continuation lines three columns in, in a band that is a shaded
// background (blank lines here) or half-block rules with COLORTERM; the
// next cell starts at column 0 ("✦", "╭", "ℹ", "✕", a rule). The history
// stays in tmux's scrollback. The status line ("? for shortcuts", the busy
// line) and the rule over the mode line end it: the composer under them
// (" > draft" in the asking modes) is no message. With NO_COLOR a prompt
// starts at column 0 among rules: not read, the check cannot tell.
func transcript() screen.Transcript {
	return screen.Transcript{
		Start: screen.Marked(1, "> "),
		Ends:  func(ln screen.Line) bool { return ln.Indent == 0 },
		Stop: func(ln screen.Line) bool {
			return ruleLine(ln) || busyLine(ln) || strings.HasSuffix(ln.T, shortcutsHint)
		},
	}
}
