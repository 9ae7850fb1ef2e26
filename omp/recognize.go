package omp

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// titlePrefix starts OMP's pane title: "π > <folder>", "π ⠏ <folder>"
// while a turn runs, "π ! <folder>" while it asks; pi's is "π - <folder>".
const titlePrefix = "π "

// recognize reports a pane of OMP (its command is bun, which names no
// CLI): its title is OMP's, or its chrome is at the bottom: the editor
// ("╰─") under the status line ("… ▶─…"). pi's screen has neither (its
// editor sits between two rules, its title is "π - …").
func recognize(title, capture string) bool {
	if rest, ok := strings.CutPrefix(title, titlePrefix); ok && (strings.HasPrefix(rest, "> ") || strings.HasPrefix(rest, "! ") || screen.BrailleSpinner(rest)) {
		return true
	}
	return read(capture).sig.Chrome == screen.ChromeComposer
}
