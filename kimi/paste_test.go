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
	testkit.CheckPastes(t, pr, []testkit.PasteCase{
		{File: "wide-line-whole", Prompt: "wide-line", Want: handoff.PasteWhole},
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		{File: "short-whole", Prompt: "short", Want: handoff.PasteWhole},
		{File: "three-lines-whole", Prompt: "three-lines", Want: handoff.PasteWhole},
		{File: "line-20000-whole", Prompt: "line-20000", Want: handoff.PasteWhole},
		{File: "lines-4k-whole", Prompt: "lines-4k", Want: handoff.PasteWhole},
		{File: "lines-60k-whole", Prompt: "lines-60k", Want: handoff.PasteWhole},
		{File: "lines-60k-whole", Prompt: "lines-4k", Want: handoff.PasteWrong},
		{File: "line-20000-whole", Prompt: "wide-line", Want: handoff.PasteWrong},
	})
}
