package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of Claude Code (the registry matches the pane's
// command by name): its title says so ("✳ Claude Code"), or its composer
// ("❯" and a no-break space between two rules) or a numbered choice
// ("❯ 1. Red") is among the bottom lines, with Claude Code's footer under
// it: nothing, or lines two columns in ("  ⏵⏵ bypass permissions on …").
// "❯" and an ordinary space is Cline's composer ("❯ Ask anything..."), and
// Copilot CLI draws a "❯" composer and numbered choices between rules too,
// but its footer stands one column in ("← open sidebar · …").
func recognize(title, capture string) bool {
	if strings.Contains(title, "Claude Code") {
		return true
	}
	oneIn := false // a line one column in under the composer
	for _, ln := range screen.Bottom(capture, 10) {
		if ln.Indent == 0 && (ln.T == "❯" || strings.HasPrefix(ln.T, "❯\u00a0") || numberedChoice(ln.T)) {
			return !oneIn
		}
		if ln.Indent == 1 {
			oneIn = true
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
