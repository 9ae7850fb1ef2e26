package copilot

import (
	"fmt"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for the
// fallback path: the bottom-most "● …" message after the last user
// prompt, without the glyph, its continuation lines without their three
// columns of indentation, its line breaks kept. Copilot CLI wraps a
// message at the pane's width itself, so a long paragraph comes back with
// line breaks where the screen broke it.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome == screen.ChromeDialog || r.message < 0 {
		if r.sig.LastUserLine != 0 {
			return "", fmt.Errorf("%w after the last prompt (%q)", screen.ErrNoAssistantMessage, r.sig.LastUser)
		}
		return "", screen.ErrNoAssistantMessage
	}
	first, _ := r.ls.LineAt(r.message)
	_, text := cell(unbar(first).T)
	msg := r.ls.Message(r.message, text, 3, func(ln screen.Line) bool { return ln.Indent < 3 }, unbar)
	if msg == "" {
		return "", fmt.Errorf("%w: the last message is empty", screen.ErrNoAssistantMessage)
	}
	return msg, nil
}
