package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane that runs Claude Code: its command names it, its
// title does ("✳ Claude Code"), or its composer ("❯" between two rules) is
// among the bottom lines.
func recognize(command, title, capture string) bool {
	if strings.Contains(strings.ToLower(command), "claude") || strings.Contains(title, "Claude Code") {
		return true
	}
	for _, ln := range screen.Bottom(capture, 10) {
		if ln.Indent == 0 && (ln.T == "❯" || strings.HasPrefix(ln.T, "❯ ")) {
			return true
		}
	}
	return false
}
