package omp

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, approvals, working
// lines and replies. None of it may change how the turn below is read.
func scrollback() string {
	return conformance.Capture(block(header...), block(rule, " ✘ 400 old", rule), block(dialog...), block("  ⎋ Working…"), block(" an old reply"))
}

// FuzzClassify checks the properties every classification has
// (conformance.Fuzz) on every real OMP screen and on synthetic ones.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, scrollback(), func(s Signals) (int, int) { return s.LinesScanned, s.BlockTop },
		conformance.Capture(block(header...), chrome(false)), "π > work",
		conformance.Capture(block(" hi"), chrome(true)), "π ⠏ work",
		conformance.Capture(block(" hi"), []string{" Hello."}, chrome(false)), "π > work")
}
