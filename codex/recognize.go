package codex

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a screen of Codex (the registry matches the pane's
// command by name): its composer ("› Ask Codex to do anything", or a draft
// after "› "; not a numbered option such as "› 1. Yes") is among the bottom
// lines.
func recognize(_, capture string) bool {
	for _, ln := range screen.Bottom(capture, 8) {
		if rest, ok := strings.CutPrefix(ln.T, "› "); ok && ln.Indent == 0 && screen.Numbered(rest) == 0 {
			return true
		}
	}
	return false
}
