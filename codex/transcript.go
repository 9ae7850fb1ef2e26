package codex

import "github.com/handoff-fsm/handoff-fsm/screen"

// transcript is how Codex 0.169.0 shows the user's messages, tried on the
// real CLI (testdata/submitted): each starts at column 0 with "› ", its
// text whole (Codex wraps it itself), continuation lines two columns in;
// the next cell starts at column 0 ("• Ran …", "• text"). The composer is
// the last "›" line, with nothing but the footer under it: a message
// nothing ends, which the shared reading leaves out. Codex draws its
// history on the screen only here (no tmux scrollback): a prompt taller
// than the pane shows its end alone, and the check cannot tell.
func transcript() screen.Transcript {
	return screen.Transcript{
		Start: screen.Marked(0, "› "),
		Ends:  func(ln screen.Line) bool { return ln.Indent == 0 },
	}
}
