package omp_test

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/omp"
)

// TestReadPasteCaptures reads the editor on real captures of OMP 18.2.3 taken
// every 200 ms while a prompt of testkit.PastePrompts was pasted, at a
// load of 60 on 2 cores: Enter may only follow a whole reading, and a chip
// whose caption is another prompt's is wrong. short-not-drawn is the
// screen a paste right after OMP drew its editor left for 12.8 s (OMP was
// still busy with its start-up and had not read the paste): still
// arriving, never wrong, so the driver waits for it.
func TestReadPasteCaptures(t *testing.T) {
	var pr handoff.PasteReader = omp.Provider()
	testkit.CheckPastes(t, pr, []testkit.PasteCase{
		{File: "short-not-drawn", Prompt: "short", Want: handoff.PasteArriving},
		{File: "short-whole", Prompt: "short", Want: handoff.PasteWhole},
		{File: "three-lines-whole", Prompt: "three-lines", Want: handoff.PasteWhole},
		{File: "line-20000-whole", Prompt: "line-20000", Want: handoff.PasteWhole},
		{File: "lines-4k-whole", Prompt: "lines-4k", Want: handoff.PasteWhole},
		{File: "lines-60k-whole", Prompt: "lines-60k", Want: handoff.PasteWhole},
		{File: "wide-line-whole", Prompt: "wide-line", Want: handoff.PasteWhole},
		{File: "lines-60k-whole", Prompt: "lines-4k", Want: handoff.PasteWrong},
		{File: "line-20000-whole", Prompt: "wide-line", Want: handoff.PasteWrong},
		{File: "three-lines-whole", Prompt: "short", Want: handoff.PasteWrong},
	})
}
