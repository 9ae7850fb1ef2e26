package gemini

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of Gemini CLI (the registry matches the pane's
// command by name): its title is one of Gemini CLI's ("◇  Ready (…)", "✦
// Working… (…)", "✋  Action Required (…)"), or among the bottom lines is
// the composer's lower half-block rule ("▀▀▀") or the footer's header
// ("workspace (/directory) … sandbox … /model"): the header is there in
// every terminal, the rule only where COLORTERM is set.
func recognize(title, capture string) bool {
	for _, p := range []string{"◇  Ready (", "✦  Working… (", "✋  Action Required ("} {
		if strings.HasPrefix(title, p) {
			return true
		}
	}
	for _, ln := range screen.Bottom(capture, 10) {
		if ln.Indent == 0 && halfRule(ln.T, lowerHalf) {
			return true
		}
		if strings.HasPrefix(ln.T, footerHeader) && strings.HasSuffix(ln.T, "/model") {
			return true
		}
	}
	return false
}
