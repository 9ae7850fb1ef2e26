package cont

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of Continue (its command is node, the pane's
// title is never set): its footer, whose right end is "◉ Continue CLI",
// under its rounded box (the composer or an approval in its place).
func recognize(_, capture string) bool {
	r := read(capture)
	return r.sig.Footer && (r.sig.Chrome == screen.ChromeComposer || r.sig.Chrome == screen.ChromeDialog)
}
