package opencode

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of OpenCode (the registry matches the pane's
// command by name): its title is OpenCode's ("OpenCode" before the first
// turn, "OC | <session title>" after), or the composer's closing "╹▀▀▀" is
// among the bottom lines (Gemini CLI's rule has no "╹") under a title that
// is not a fork's: Kilo Code draws the same screen under "Kilo CLI".
func recognize(title, capture string) bool {
	if title == "OpenCode" || strings.HasPrefix(title, "OC | ") {
		return true
	}
	if strings.HasPrefix(title, "Kilo") {
		return false
	}
	for _, ln := range screen.Bottom(capture, 10) {
		if strings.HasPrefix(ln.T, "╹▀▀▀") {
			return true
		}
	}
	return false
}
