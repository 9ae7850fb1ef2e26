package cont

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lastMessage returns the last assistant message of a capture, for the
// fallback path: under a ready composer, the newest bulleted message when
// it is the assistant's (an even place in its run), or the streamed answer
// drawn without a bullet under the user's message, else, after a tool
// call, the message drawn without a bullet under the tool's output (two
// columns in). Paragraph breaks are kept; Continue wraps a message at the
// pane's width itself, so a long paragraph comes back with line breaks
// where the screen broke it. A turn still running, a dialog, an error, a
// user's message, or a run whose start is off the screen (which message
// is whose cannot be told) is no message.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer || r.sig.BusyLine != 0 || len(r.cells) == 0 {
		return "", screen.ErrNoAssistantMessage
	}
	c := r.cells[0]
	var lines []string
	switch {
	case c.kind == screen.CellMessage && streamed(c.body) >= 0:
		lines = bodyText(c.body[:streamed(c.body)+1])
	case c.kind == screen.CellMessage && r.sig.RunKnown:
		lines = append([]string{strings.TrimPrefix(c.head.T, bullet)}, bodyText(c.body)...)
	case c.kind == screen.CellTool:
		lines = afterOutput(c.body)
	}
	if msg := strings.TrimSpace(strings.Join(lines, "\n")); msg != "" {
		return strings.Clone(msg), nil
	}
	return "", screen.ErrNoAssistantMessage
}

// bodyText is a cell's lines under its first, top down, two columns of
// indent cut.
func bodyText(body []screen.Line) []string {
	out := make([]string, 0, len(body))
	for i := len(body) - 1; i >= 0; i-- {
		out = append(out, screen.DropIndent(body[i].Text, 2))
	}
	return out
}

// afterOutput is the message Continue draws without a bullet under a tool
// call: the lines from the first one two columns in, after a blank line,
// that is not the tool's output ("⎿ …" and the lines under it, four
// columns in), to the end of the cell.
func afterOutput(body []screen.Line) []string {
	lines := bodyText(body)
	blank := false
	for i := len(body) - 1; i >= 0; i-- {
		ln := body[i]
		if ln.T == "" {
			blank = true
			continue
		}
		if blank && ln.Indent == 2 && !strings.HasPrefix(ln.T, outputMark) {
			return lines[len(body)-1-i:]
		}
		blank = false
	}
	return nil
}
