package claude

import (
	"regexp"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// pasteForm is how Claude Code 2.1.330 shows a paste, tried on the real
// CLI (testdata/paste): several lines as "[Pasted text #2 +71 lines]"
// (its line breaks; the number counts the session's pastes), a long
// single line as "[Pasted text #1]" (no size), a short one as its text.
// The composer sits between two rules, behind "❯".
func pasteForm() screen.PasteForm {
	return screen.PasteForm{
		Folds: []screen.Fold{
			{Pattern: regexp.MustCompile(`\[Pasted text #\d+ \+(\d+) lines\]`), Size: screen.LineBreaks},
			{Pattern: regexp.MustCompile(`\[Pasted text #\d+\]`)},
		},
		Composer: screen.BetweenRules(60, "❯", ">"),
	}
}
