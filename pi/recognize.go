package pi

import (
	"path/filepath"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane that runs pi: its command is "pi" (the Node
// process names itself), or its title is pi's ("π - <folder>"), or its
// chrome is at the bottom: two full-width rules with the footer's context
// line ("0.0%/128k (auto)") under them.
func recognize(command, title, capture string) bool {
	// The name itself, not a part of it: "pip" and "spin" are not pi.
	if strings.EqualFold(filepath.Base(strings.TrimSpace(command)), "pi") || strings.HasPrefix(title, "π - ") {
		return true
	}
	r := read(capture)
	return r.sig.Chrome != screen.ChromeNone && r.sig.Footer
}
