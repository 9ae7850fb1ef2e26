package kimi_test

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/kimi"
)

// TestReadPasteOnRealScreens reads the composer on real captures taken
// while a prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe):
// Enter may only follow a whole reading, and a fold whose size is
// another prompt's is wrong.
func TestReadPasteOnRealScreens(t *testing.T) {
	var pr handoff.PasteReader = kimi.Provider()
	// Each prompt's screen once the composer showed it: its text or pi's
	// fold with its size.
	var cases []testkit.PasteCase
	for _, p := range []string{"wide-line", "short", "three-lines", "line-20000", "lines-4k", "lines-60k"} {
		cases = append(cases, testkit.PasteCase{File: p + "-whole", Prompt: p, Want: handoff.PasteWhole})
	}
	testkit.CheckPastes(t, pr, append(cases,
		testkit.PasteCase{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		testkit.PasteCase{File: "lines-60k-whole", Prompt: "lines-4k", Want: handoff.PasteWrong},
		testkit.PasteCase{File: "line-20000-whole", Prompt: "wide-line", Want: handoff.PasteWrong}))
}
