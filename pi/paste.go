package pi

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// pasteForm is how pi 0.73.1 shows a paste, tried on the real CLI
// (testdata/paste): a long single line as "[paste #1 20000 chars]" (its
// length in UTF-16 units), several lines as "[paste #2 +72 lines]" (its
// lines; the number counts the session's pastes), a short one as its
// text. The composer sits between two rules, with no mark.
func pasteForm() screen.PasteForm {
	return screen.PasteForm{
		Folds:    screen.PiFolds(),
		Composer: screen.BetweenRules(60),
	}
}
