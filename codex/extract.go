package codex

import (
	"fmt"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for the
// fallback path (the agent answered on screen instead of in its response
// file). It takes the bottom-most message after the last user message — a
// "• …" cell that is not a tool cell (• Ran, • Explored, • Edited …), or a
// legacy "assistant: …" line — and returns its text without the bullet or
// label, with the continuation indentation removed and its lines kept. The
// prompt, footer, status line and "Worked for" line are never part of it.
//
// It returns an error wrapping screen.ErrNoAssistantMessage when there is none: a
// reply from an earlier turn is never passed off as the answer.
func lastMessage(capture string) (string, error) {
	var r reading
	r.read(capture, true)
	h := &r.history
	if h.message < 0 {
		if h.userFound {
			return "", fmt.Errorf("%w after the last user message (%q)", screen.ErrNoAssistantMessage, h.lastUser)
		}
		return "", screen.ErrNoAssistantMessage
	}
	var (
		cl    screen.Lines // only its cleaner is used
		out   []string
		first = true
	)
	for pos, end := h.message, r.uiStart(); pos < end; {
		raw, next := screen.Next(capture, pos)
		pos = next
		l := cl.Clean(raw, screen.Dirty(raw))
		t, indent := screen.TrimLeft(l)
		if first {
			first = false
			if h.messageLegacy {
				text, _ := isLegacyLabel(t, indent)
				out = append(out, text)
			} else {
				text, _ := bulletText(t, indent)
				out = append(out, text)
			}
			continue
		}
		if t == "" {
			out = append(out, "")
			continue
		}
		if endsMessage(t, indent, h.messageLegacy) {
			break
		}
		if h.messageLegacy {
			out = append(out, l)
			continue
		}
		// 0.169 indents a message's continuation lines by two columns.
		out = append(out, screen.DropIndent(l, 2))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	if len(out) == 0 {
		return "", fmt.Errorf("%w: the last message is empty", screen.ErrNoAssistantMessage)
	}
	return strings.Join(out, "\n"), nil
}

// endsMessage reports whether the non-blank line t (below a message's first
// line) starts something else.
func endsMessage(t string, indent int, legacy bool) bool {
	if isWorkedFor(t) || isTip(t) {
		return true
	}
	if !legacy {
		// In 0.169 every line of a message is indented; anything at column
		// 0 is the next cell.
		return indent == 0
	}
	if kind, _ := promptLine(t); kind != notPrompt {
		return true
	}
	if isLegacyUser(t, indent) || footer(t, indent) != notFooter {
		return true
	}
	if _, ok := isLegacyLabel(t, indent); ok {
		return true
	}
	if _, ok := bulletText(t, indent); ok {
		return true
	}
	isErr, interrupted := errorCell(t, indent)
	return isErr || interrupted
}
