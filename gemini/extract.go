package gemini

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for
// the fallback path: the bottom-most "✦ …" message after the last user
// prompt, without the glyph, its continuation lines without their two
// columns of indentation, its line breaks kept. Notes, tool boxes, the
// status line and the composer are never part of it.
//
// Gemini CLI wraps a message at the pane's width itself, so a long
// paragraph comes back with line breaks where the screen broke it.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	return r.sig.LastMessage(&r.Cells, r.kind, cell, 2, endsMessage, nil)
}

// endsMessage reports whether the non-blank line ln, below a message's
// first line, starts something else: a cell at column 0, the busy line,
// the queue or the shortcuts hint.
func endsMessage(ln screen.Line) bool {
	return ln.Indent == 0 || busyLine(ln) || strings.HasPrefix(ln.T, queuedHeader) || strings.HasPrefix(ln.T, shortcutsHint)
}
