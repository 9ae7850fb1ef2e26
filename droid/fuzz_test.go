package droid

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, approvals, working
// lines and replies. None of it may change how the turn below is read.
func scrollback() string {
	return conformance.Capture(header, prompt("Old"), []string{"●  BYOK Error: 400 old", ""}, approval, []string{working, ""}, reply("An old reply."))
}

// FuzzClassify checks the properties every classification has
// (conformance.Fuzz) on every real droid screen and on synthetic ones.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, scrollback(), func(s Signals) (int, int) { return s.LinesScanned, s.CellLine },
		conformance.Capture(header, chrome(false, "")), "⛬ Droid",
		conformance.Capture(prompt("hi"), chrome(true, "")), "⛬ hi",
		conformance.Capture(prompt("hi"), reply("Hello."), chrome(false, "")), "⛬ hi")
}
