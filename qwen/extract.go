package qwen

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for
// the fallback path: the bottom-most "◆︎ …" message after the last user
// prompt, without the glyph, its continuation lines without their four
// columns of indentation, its line breaks kept. Qwen Code wraps a message
// at the pane's width itself, so a long paragraph comes back with line
// breaks where the screen broke it.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	return r.sig.LastMessage(&r.Cells, r.sig.Chrome, cell, 4, func(ln screen.Line) bool { return ln.Indent < 4 }, unbar)
}
