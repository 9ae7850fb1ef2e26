package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of Claude Code (the registry matches the pane's
// command by name): its title says so ("✳ Claude Code"), or its composer
// ("❯" and a no-break space between two rules) or a numbered choice
// ("❯ 1. Red") is among the bottom lines. "❯" and an ordinary space alone
// is Cline's composer too ("❯ Ask anything..."), which is not Claude's.
func recognize(title, capture string) bool {
	if strings.Contains(title, "Claude Code") {
		return true
	}
	for _, ln := range screen.Bottom(capture, 10) {
		if ln.Indent == 0 && (ln.T == "❯" || strings.HasPrefix(ln.T, "❯\u00a0") || screen.Numbered(strings.TrimPrefix(ln.T, "❯ ")) > 0) {
			return true
		}
	}
	return false
}
