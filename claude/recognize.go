package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of Claude Code (the registry matches the pane's
// command by name): its title says so ("✳ Claude Code"), or its composer
// ("❯" between two rules) is among the bottom lines.
func recognize(title, capture string) bool {
	if strings.Contains(title, "Claude Code") {
		return true
	}
	for _, ln := range screen.Bottom(capture, 10) {
		if ln.Indent == 0 && (ln.T == "❯" || strings.HasPrefix(ln.T, "❯ ")) {
			return true
		}
	}
	return false
}
