package cont_test

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	cont "github.com/handoff-fsm/handoff-fsm/continue"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestReadPasteOnRealScreens reads the composer on real captures taken
// while a prompt of testkit.PastePrompts was pasted (e2e TestPasteProbe):
// Enter may only follow a whole reading, and a fold whose size is another
// prompt's is wrong. Continue's fold of one line shows no size
// ("[Paste #1]"): alone in the box it reads whole for any one-line
// prompt, but never for a prompt of several lines.
func TestReadPasteOnRealScreens(t *testing.T) {
	var pr handoff.PasteReader = cont.Provider()
	testkit.CheckPastes(t, pr, []testkit.PasteCase{
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		{File: "lines-60k-whole", Prompt: "three-lines", Want: handoff.PasteWrong},
		{File: "line-20000-whole", Prompt: "lines-4k", Want: handoff.PasteWrong},
	})
}
