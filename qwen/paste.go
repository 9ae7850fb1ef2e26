package qwen

import (
	"regexp"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// pasteForm is how Qwen Code 0.24.4 shows a paste, tried on the real CLI
// (testdata/paste): while it reads one it shows "Pasting… 12 KB" under the
// composer (redrawn every quarter second, at 16–40 KB/s); a long one then
// sits in the composer as "[Pasted Content 61492 chars]", the prompt's
// code points (an emoji counts one, unlike Gemini CLI's UTF-16 count); a
// short one as its text.
// The composer sits between two rules, behind "*" (--yolo) or ">" (the
// approval modes that ask).
func pasteForm() screen.PasteForm {
	return screen.PasteForm{
		Folds:       []screen.Fold{{Pattern: regexp.MustCompile(`\[Pasted Content (\d+) chars\]`), Size: utf8.RuneCountInString}},
		Arriving:    regexp.MustCompile(`^Pasting… \d+`),
		Composer:    screen.BetweenRules(60, "*", ">"),
		Placeholder: screen.Prefixes("Type your message or @path/to/file"),
	}
}
