package opencode

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane that runs OpenCode: its command names it, its
// title is OpenCode's ("OpenCode" before the first turn, "OC | <session
// title>" after), or the composer's closing "╹▀▀▀" is among the bottom
// lines (Gemini CLI's rule has no "╹").
func recognize(command, title, capture string) bool {
	if strings.Contains(strings.ToLower(command), "opencode") {
		return true
	}
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
