package claude

import (
	"regexp"
	"strings"

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
		Composer:    screen.BetweenRules(60, "❯", ">"),
		Placeholder: placeholder,
	}
}

// placeholder is the empty composer's hint: after a failed request
// "Resend your message to try again" (see resendPlaceholder); and the
// example prompts a new session may suggest ('Try "fix lint errors"'),
// which the captured screens do not show but which must not read as a
// draft either.
func placeholder(first string) bool {
	return resendPlaceholder(first) || strings.HasPrefix(first, `Try "`)
}
