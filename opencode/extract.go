package opencode

import (
	"errors"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ErrNoAssistantMessage is returned by ExtractLastMessage when the capture
// holds no assistant message above the newest turn footer.
var ErrNoAssistantMessage = errors.New("opencode: no assistant message on the screen")

// messageIndent is how far in OpenCode draws a message.
const messageIndent = 5

// ExtractLastMessage returns the last assistant message of a capture, for
// the fallback path: the lines right above the newest turn footer ("▣
// Build · …") that are in no box, without their five columns of
// indentation, line breaks kept. OpenCode wraps a message at the pane's
// width itself, so a long paragraph comes back with line breaks where the
// screen broke it.
func ExtractLastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome == ChromeDialog || r.sig.FooterLine == 0 || len(r.message) == 0 {
		return "", ErrNoAssistantMessage
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
		return "", ErrNoAssistantMessage
	}
	return strings.Clone(strings.Join(out, "\n")), nil
}
