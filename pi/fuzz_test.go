package pi

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, dialogs, working
// lines and replies. None of it may change how the turn below is read.
func scrollback() string {
	return conformance.Capture(block(header...), block(" Error: 400 old"), block(" → Allow", " ↑↓ navigate  enter select"), block(working), block(" an old reply"),
		[]string{strings.Repeat("─", 80)})
}

// FuzzClassify checks the properties every classification has
// (conformance.Fuzz) on every real pi screen and on synthetic ones.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, scrollback(), func(s Signals) (int, int) { return s.LinesScanned, s.BlockTop },
		conformance.Capture(block(header...), chrome(false, "")), "π - work",
		conformance.Capture(block(" hi"), chrome(true, "")), "π - work",
		conformance.Capture(block(" hi"), []string{" Hello."}, chrome(false, "")), "π - work")
}
