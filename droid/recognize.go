package droid

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of droid (the registry matches the pane's
// command by name: the binary is "droid"): its title is droid's ("⛬
// Droid", "⛬ <session title>"), or its chrome is at the bottom: the
// rounded box with droid's mode line above it ("Auto (Off) · …", "Bash
// mode active") or its approval, with "? for help" or the hint under it.
func recognize(title, capture string) bool {
	if strings.HasPrefix(title, message+" ") {
		return true
	}
	r := read(capture)
	switch r.sig.Chrome {
	case screen.ChromeComposer:
		return strings.HasPrefix(r.sig.Mode, "Auto (") || strings.HasPrefix(r.sig.Mode, "Bash mode active")
	case screen.ChromeDialog:
		return screen.BottomHas(capture, 12, approveHead)
	}
	return false
}
