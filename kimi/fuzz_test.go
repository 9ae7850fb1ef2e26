package kimi

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// scrollback is what may sit above a turn: old errors, approvals, working
// lines and replies. None of it may change how the turn below is read.
func scrollback() string {
	return conformance.Capture(welcome, promptCell("Old"), apiError, promptCell("Older"), tool("ls", "a"), []string{working, ""}, reply("An old reply."))
}

// FuzzClassify checks the properties every classification has
// (conformance.Fuzz) on every real Kimi Code screen and on synthetic ones.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, scrollback(), func(s Signals) (int, int) { return s.LinesScanned, s.PromptLine },
		conformance.Capture(welcome, chrome(false, "")), "",
		conformance.Capture(promptCell("hi"), chrome(true, "")), "hi",
		conformance.Capture(promptCell("hi"), reply("Hello."), chrome(false, "")), "hi")
}
