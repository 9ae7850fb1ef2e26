package kimi

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of Kimi Code (the registry matches the pane's
// command, kimi-code, by name): it sets no title, so its chrome decides:
// the rounded box (or a dialog between two rules) over the footer whose
// last line is the context gauge ("context: 1% (20/125k)").
func recognize(_, capture string) bool {
	r := read(capture)
	return r.sig.Footer && (r.sig.Chrome == screen.ChromeComposer || r.sig.Chrome == screen.ChromeDialog)
}
