package opencode

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of OpenCode (the registry matches the pane's
// command by name): its title is OpenCode's ("OpenCode" before the first
// turn, "OC | <session title>" after), or the composer's closing "╹▀▀▀" is
// among the bottom lines (Gemini CLI's rule has no "╹").
func recognize(title, capture string) bool {
	if title == "OpenCode" || strings.HasPrefix(title, "OC | ") {
		return true
	}
	for _, ln := range screen.Bottom(capture, 10) {
		if strings.HasPrefix(ln.T, "╹▀▀▀") {
			return true
		}
	}
	return false
}
