package pi

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for
// the fallback path: the newest block above the editor (after two blank
// lines in a row), one column of indentation dropped, paragraph breaks
// kept, without the "Operation aborted" note. pi wraps a message at the
// pane's width itself, so a long paragraph comes back with line breaks
// where the screen broke it. A block that is the header, an error or the
// working line is no message; in a capture without colour, the prompt of
// a turn that has not answered yet cannot be told from a reply.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer || r.sig.BusyLine != 0 || r.sig.Header || r.sig.Error != "" || len(r.block) == 0 {
		return "", screen.ErrNoAssistantMessage
	}
	lines := r.block
	if r.sig.Aborted {
		lines = lines[1:]
	}
	if msg := screen.BlockText(lines, 1); msg != "" {
		return msg, nil
	}
	return "", screen.ErrNoAssistantMessage
}
