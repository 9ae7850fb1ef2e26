package droid

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for the
// fallback path: the newest cell when it is a message ("⛬  text" and the
// paragraphs under it, three columns in), paragraph breaks kept. droid
// wraps a message at the pane's width itself, so a long paragraph comes
// back with line breaks where the screen broke it. A turn still running, an
// error or a note is no message.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer || r.sig.BusyLine != 0 || r.sig.Steer || r.sig.Cell != screen.CellMessage {
		return "", screen.ErrNoAssistantMessage
	}
	top := len(r.cell) - 1
	out := []string{strings.TrimSpace(strings.TrimPrefix(r.cell[top].T, message))}
	for i := top - 1; i >= 0; i-- {
		// A blank line (not kept by the walk) between two lines is a
		// paragraph break.
		for n := r.cell[i+1].N - 1; n > r.cell[i].N; n-- {
			out = append(out, "")
		}
		out = append(out, screen.DropIndent(r.cell[i].Text, 3))
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 || out[0] == "" && len(out) == 1 {
		return "", screen.ErrNoAssistantMessage
	}
	return strings.Clone(strings.Join(out, "\n")), nil
}
