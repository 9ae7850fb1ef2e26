package cline

import (
	"regexp"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// transcript is how Cline 3.0.65 shows the user's messages, tried on the
// real CLI (testdata/submitted): each starts one column in with "❯ ",
// continuation lines three columns in; the next cell starts one column in
// ("* text", "* run_commands(…)"). A paste of five lines or more — every
// dispatch, its instruction included — shows as its fold, "[first
// words... Pasted +N lines]", the words the prompt's start and N its lines
// (pastedLines), on one line or wrapped; a message submitted while a turn
// runs shows whole. The composer's upper rule ends the transcript; the
// scrollbar in the last column is dropped. Cline draws its history on the
// screen only (no tmux scrollback). A fold is no dispatch's own (the same prompt dispatched
// before folds the same): the reading takes the last one, or the one right
// before a copy of the prompt shown whole; two folds of one prompt, one
// after the other, read as one.
func transcript() screen.Transcript {
	return screen.Transcript{
		Start: screen.Marked(1, promptMark),
		Ends:  func(ln screen.Line) bool { return ln.Indent <= 1 },
		Stop:  func(ln screen.Line) bool { return ln.Indent == 0 && screen.IsRule(ln.T, 20) },
		Clean: unbar,
		Folds: []screen.Fold{{Pattern: regexp.MustCompile(`(?s)^\[(?P<head>.*)\.\.\.\s+Pasted\s+\+(\d+)\s+lines\]$`), Size: pastedLines}},
	}
}
