package qwen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ErrNoAssistantMessage is returned by ExtractLastMessage when the capture
// holds no assistant message after the last user prompt (or none at all).
var ErrNoAssistantMessage = errors.New("qwen: no assistant message on the screen")

// ExtractLastMessage returns the last assistant message of a capture, for
// the fallback path: the bottom-most "◆︎ …" message after the last user
// prompt, without the glyph, its continuation lines without their four
// columns of indentation, its line breaks kept. Qwen Code wraps a message
// at the pane's width itself, so a long paragraph comes back with line
// breaks where the screen broke it.
func ExtractLastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome == ChromeDialog || r.message < 0 {
		if r.sig.LastUserLine != 0 {
			return "", fmt.Errorf("%w after the last prompt (%q)", ErrNoAssistantMessage, r.sig.LastUser)
		}
		return "", ErrNoAssistantMessage
	}
	first, pos := r.ls.LineAt(r.message)
	first = unbar(first)
	_, text := cell(first.T)
	out := []string{strings.Clone(text)}
	for pos < len(capture) {
		ln, next := r.ls.LineAt(pos)
		ln = unbar(ln)
		pos = next
		if ln.T == "" {
			out = append(out, "")
			continue
		}
		if ln.Indent < 4 {
			break
		}
		out = append(out, strings.Clone(screen.DropIndent(ln.Text, 4)))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 || (len(out) == 1 && out[0] == "") {
		return "", fmt.Errorf("%w: the last message is empty", ErrNoAssistantMessage)
	}
	return strings.Join(out, "\n"), nil
}
