package pi

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of pi (the registry matches the pane's command
// by name: the Node process names itself "pi"): its title is pi's ("π -
// <folder>"), or its chrome is at the bottom: two full-width rules with the
// footer's context line ("0.0%/128k (auto)") under them.
func recognize(title, capture string) bool {
	if strings.HasPrefix(title, "π - ") {
		return true
	}
	r := read(capture)
	return r.sig.Chrome != screen.ChromeNone && r.sig.Footer
}
