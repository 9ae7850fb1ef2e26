package omp

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for the
// fallback path: the newest block above the chrome (after two blank lines
// in a row), one column of indentation dropped, paragraph breaks kept. OMP
// wraps a message at the pane's width itself, so a long paragraph comes
// back with line breaks where the screen broke it. A block that is the
// welcome box, an error or the working line is no message; in a capture
// without colour, the prompt of a turn that has not answered yet cannot be
// told from a reply.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer || r.sig.BusyLine != 0 || r.sig.Header || r.sig.Error != "" || len(r.block) == 0 {
		return "", screen.ErrNoAssistantMessage
	}
	out := make([]string, 0, len(r.block))
	for i := len(r.block) - 1; i >= 0; i-- {
		out = append(out, screen.DropIndent(r.block[i].Text, 1))
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return "", screen.ErrNoAssistantMessage
	}
	return strings.Clone(strings.Join(out, "\n")), nil
}
