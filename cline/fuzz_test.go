package cline

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, dialogs, busy
// lines, tool calls and replies. None of it may change how the turn below
// is read.
func scrollback() string {
	return conformance.Capture([]string{" ❯ old prompt", " * Error: old", " Cline needs permission", " [y] Approve   [n] Deny",
		busyLine, " * run_commands(ls)", "   ⎿ README.md", " * an old reply", rule})
}

// FuzzClassify checks the properties every classification has
// (conformance.Fuzz) on every real Cline screen and on synthetic ones.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, scrollback(), func(s Signals) (int, int) { return s.LinesScanned, s.LastUserLine },
		conformance.Capture(chrome("")), "Cline",
		conformance.Capture([]string{" ❯ hi"}, busy()), "> hi",
		conformance.Capture([]string{" ❯ hi", " * Hello."}, chrome("")), "> hi")
}
