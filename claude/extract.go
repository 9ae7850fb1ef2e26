package claude

import (
	"fmt"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for the
// fallback path (the agent answered on screen instead of in its response
// file). It takes the bottom-most "● …" message after the last user prompt —
// not a tool call (a bullet with "⎿ …" under it) and not an API error — and
// returns its text without the bullet, its continuation lines without their
// two columns of indentation, and its line breaks kept. The spinner, the
// "✻ … for Ns" line, tips, the composer and the footer are never part of it.
//
// Claude Code wraps a message at the pane's width itself, so a long
// paragraph comes back with line breaks where the screen broke it.
//
// It returns an error wrapping screen.ErrNoAssistantMessage when there is none: a
// reply from an earlier turn is never passed off as the answer.
func lastMessage(capture string) (string, error) {
	sc := read(capture)
	if sc.chrome.kind == screen.ChromeDialog || sc.history.message < 0 {
		if sc.sig.LastUserLine != 0 {
			return "", fmt.Errorf("%w after the last prompt (%q)", screen.ErrNoAssistantMessage, sc.sig.LastUser)
		}
		return "", screen.ErrNoAssistantMessage
	}
	first, _ := sc.ls.LineAt(sc.history.message)
	text, _ := bulletText(first)
	msg := sc.ls.Message(sc.history.message, text, 2, endsMessage, nil)
	if msg == "" {
		return "", fmt.Errorf("%w: the last message is empty", screen.ErrNoAssistantMessage)
	}
	return msg, nil
}

// endsMessage reports whether the non-blank line ln, below a message's
// first line, starts something else: a cell at column 0 (the next message,
// the spinner, the done line, a prompt), a "⎿" line (the Interrupted note,
// a tip), a rule (the composer) or a notice.
func endsMessage(ln line) bool {
	return ln.Indent == 0 || elbowLine(ln) || isRule(ln.T) || noticeLine(ln.T) || effortLine(ln)
}
