package opencode

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// messageIndent is how far in OpenCode draws a message.
const messageIndent = 5

// lastMessage returns the last assistant message of a capture, for
// the fallback path: the lines right above the newest turn footer ("▣
// Build · …") that are in no box, without their five columns of
// indentation, line breaks kept. OpenCode wraps a message at the pane's
// width itself, so a long paragraph comes back with line breaks where the
// screen broke it.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome == screen.ChromeDialog || r.sig.FooterLine == 0 || len(r.message) == 0 {
		return "", screen.ErrNoAssistantMessage
	}
	out := make([]string, 0, len(r.message))
	for i := len(r.message) - 1; i >= 0; i-- {
		out = append(out, screen.DropIndent(r.message[i].Text, messageIndent))
	}
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return "", screen.ErrNoAssistantMessage
	}
	return strings.Clone(strings.Join(out, "\n")), nil
}
