package copilot

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// titleSuffix ends Copilot CLI's title once a session has a name
// ("Say hello - GitHub Copilot"); before, the title is the name alone.
const titleSuffix = "GitHub Copilot"

// recognize reports a pane of Copilot CLI (the registry matches the pane's
// command by name): its title is Copilot CLI's ("GitHub Copilot", "<first
// prompt> - GitHub Copilot"), or its idle footer ("← open sidebar · …")
// is among the bottom lines.
func recognize(title, capture string) bool {
	if title == titleSuffix || strings.HasSuffix(title, " - "+titleSuffix) {
		return true
	}
	for _, ln := range screen.Bottom(capture, 6) {
		if ln.Indent == 1 && strings.HasPrefix(ln.T, "← open sidebar · ") {
			return true
		}
	}
	return false
}
