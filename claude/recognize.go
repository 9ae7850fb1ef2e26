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
		if ln.Indent == 0 && (ln.T == "❯" || strings.HasPrefix(ln.T, "❯\u00a0") || numberedChoice(ln.T)) {
			return true
		}
	}
	return false
}

// numberedChoice reports the highlighted option of Claude Code's numbered
// menus ("❯ 1. Red").
func numberedChoice(t string) bool {
	rest, ok := strings.CutPrefix(t, "❯ ")
	return ok && screen.Numbered(rest) > 0
}
