package gemini

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Recognize reports a pane that runs Gemini CLI: its command names it, its
// title is one of Gemini CLI's ("◇  Ready (…)", "✦  Working… (…)", "✋
// Action Required (…)"), or the composer's lower half-block rule ("▀▀▀")
// is among the bottom lines.
func Recognize(command, title, capture string) bool {
	if strings.Contains(strings.ToLower(command), "gemini") {
		return true
	}
	for _, p := range []string{"◇  Ready (", "✦  Working… (", "✋  Action Required ("} {
		if strings.HasPrefix(title, p) {
			return true
		}
	}
	for _, ln := range screen.Bottom(capture, 10) {
		if ln.Indent == 0 && halfRule(ln.T, lowerHalf) {
			return true
		}
	}
	return false
}
