package claude

import "github.com/handoff-fsm/handoff-fsm/screen"

// transcript is how Claude Code 2.1.330 shows the user's messages, tried on
// the real CLI (testdata/submitted): each starts at column 0 with "❯ ",
// its text whole (a folded paste is expanded), continuation lines two
// columns in; the next cell starts at column 0 ("●", "✻"). A tool's
// summary ("  Ran 1 shell command", "  ⎿ …") sits two columns in right
// under it: it is read as the message's end, which the check allows. The
// history stays in tmux's scrollback; the composer's rules end it.
func transcript() screen.Transcript {
	return screen.Transcript{
		Start: screen.Marked(0, "❯ ", "❯"+screen.NBSP),
		Ends:  func(ln screen.Line) bool { return ln.Indent == 0 },
		Stop:  func(ln screen.Line) bool { return ln.Indent == 0 && screen.IsRule(ln.T, 20) },
	}
}
