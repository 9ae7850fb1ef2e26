package cline

import (
	"fmt"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for the
// fallback path: the newest message cell ("* text") after the last prompt,
// without its glyph, its continuation lines without their three columns of
// indentation, its line breaks kept. Tool calls and errors are no message;
// neither is anything while a turn runs or a dialog waits. Cline wraps a
// message at the pane's width itself, so a long paragraph comes back with
// line breaks where the screen broke it.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer || r.sig.BusyLine != 0 || r.message < 0 {
		if r.sig.LastUserLine != 0 {
			return "", fmt.Errorf("%w after the last prompt (%q)", screen.ErrNoAssistantMessage, r.sig.LastUser)
		}
		return "", screen.ErrNoAssistantMessage
	}
	first, _ := r.w.LineAt(r.message)
	first = unbar(first)
	msg := r.w.Message(r.message, strings.TrimPrefix(first.T, cellMark), 3,
		func(ln screen.Line) bool { return ln.Indent <= 1 }, unbar)
	if msg == "" {
		return "", fmt.Errorf("%w: the last message is empty", screen.ErrNoAssistantMessage)
	}
	return msg, nil
}
