package omp

import (
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
	if msg := screen.BlockText(r.block, 1); msg != "" {
		return msg, nil
	}
	return "", screen.ErrNoAssistantMessage
}
