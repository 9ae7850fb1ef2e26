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
		if rest, ok := strings.CutPrefix(ln.T, "› "); ok && ln.Indent == 0 && !numbered(rest) {
			return true
		}
	}
	return false
}

// numbered reports "1. …": a dialog's option, not a composer.
func numbered(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(s[i:], ". ")
}
