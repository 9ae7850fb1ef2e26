package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of Claude Code (the registry matches the pane's
// command by name): its title says so ("✳ Claude Code"), or its composer
// ("❯" between two rules) is among the bottom lines with Claude Code's
// footer under it: nothing, or lines two columns in ("  ⏵⏵ bypass
// permissions on …"). Copilot CLI draws a "❯" composer between rules too,
// but its footer stands one column in ("← open sidebar · …").
func recognize(title, capture string) bool {
	if strings.Contains(title, "Claude Code") {
		return true
	}
	oneIn := false // a line one column in under the composer
	for _, ln := range screen.Bottom(capture, 10) {
		if ln.Indent == 0 && (ln.T == "❯" || strings.HasPrefix(ln.T, "❯ ")) {
			return !oneIn
		}
		if ln.Indent == 1 {
			oneIn = true
		}
	}
	return false
}
