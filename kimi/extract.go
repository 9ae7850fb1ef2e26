package kimi

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// interrupted is the note under an answer cut short by Esc.
const interrupted = "Interrupted by user"

// lastMessage returns the last assistant message of a capture, for the
// fallback path: the newest message cell after the last prompt ("● text"
// and the lines under it, three columns in), paragraph breaks kept; tool
// cells and their output are skipped. Kimi Code wraps a message at the
// pane's width itself, so a long paragraph comes back with line breaks
// where the screen broke it. A turn still running, or an error, is no
// message.
func lastMessage(capture string) (string, error) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer || r.sig.BusyLine != 0 || r.sig.PromptLine == 0 || r.sig.Cell == screen.CellError {
		return "", screen.ErrNoAssistantMessage
	}
	// The newest message cell: its marker line, and the lines under it
	// down to the next marker line (r.turn is bottom up).
	for i, ln := range r.turn {
		if ln.Indent != 1 || !strings.HasPrefix(ln.T, bullet) || toolLine(ln.T) {
			continue
		}
		end := i
		for end > 0 && r.turn[end-1].Indent != 1 {
			end--
		}
		out := []string{strings.TrimPrefix(ln.T, bullet)}
		for j := i - 1; j >= end; j-- {
			for n := r.turn[j+1].N - 1; n > r.turn[j].N; n-- {
				out = append(out, "")
			}
			out = append(out, screen.DropIndent(r.turn[j].Text, 3))
		}
		// An answer cut short by Esc ends with Kimi Code's note.
		if n := len(out); n > 1 && strings.TrimSpace(out[n-1]) == interrupted {
			out = out[:n-1]
		}
		if msg := strings.TrimSpace(strings.Join(out, "\n")); msg != "" {
			return strings.Clone(msg), nil
		}
	}
	return "", screen.ErrNoAssistantMessage
}
