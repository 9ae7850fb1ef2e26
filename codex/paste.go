package codex

import (
	"regexp"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// pasteForm is how Codex 0.169.0 shows a paste, tried on the real CLI
// (testdata/paste): a long one as "[Pasted Content 61492 chars]" (its
// characters), a short one as its text. The composer starts with "›"
// and ends above the footer and status line.
func pasteForm() screen.PasteForm {
	return screen.PasteForm{
		Folds:    []screen.Fold{{Pattern: regexp.MustCompile(`\[Pasted Content (\d+) chars\]`), Size: utf8.RuneCountInString}},
		Composer: screen.MarkedComposer(60, chevron, func(ln screen.Line) bool { return footer(ln.T, ln.Indent) != notFooter }),
	}
}
