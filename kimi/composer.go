package kimi

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerMode finds shell mode by the box's top ("╭ ! shell mode ─").
func composerMode(capture string) string {
	if r := read(capture); r.sig.Chrome == screen.ChromeComposer && r.sig.Shell {
		return screen.ShellMode
	}
	return ""
}

// clearKeys: Ctrl-C empties the composer (and keeps shell mode), then
// Backspace on the empty composer leaves shell mode. Ctrl-C on an empty
// composer arms "Press Ctrl+C again to exit" instead, and a second one
// quits: the driver clears only after a paste, so there is text, and it
// presses it once.
func clearKeys(capture string) []string {
	if composerMode(capture) != "" {
		return []string{"C-c", "BSpace"}
	}
	return []string{"C-c"}
}

// composerText is what the box holds, its frame and mark ("> ", "! ")
// cut: the lines top down.
func composerText(capture string) ([]string, bool) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer {
		return nil, false
	}
	lines := make([]string, 0, len(r.inner))
	for i := len(r.inner) - 1; i >= 0; i-- {
		t := unframe(r.inner[i].Text)
		if i == len(r.inner)-1 {
			t = screen.CutMark(t, ">", "!")
		}
		lines = append(lines, t)
	}
	return lines, true
}

// unframe is a box line without its sides and the blanks inside them.
func unframe(t string) string {
	t = strings.TrimPrefix(strings.TrimSpace(t), boxSide)
	return strings.TrimSpace(strings.TrimSuffix(t, boxSide))
}

// pasteForm is how Kimi Code 2.1.0 shows a paste, tried on the real CLI
// (testdata/paste): pi's editor's folds (its terminal UI is built on
// pi's), "[paste #1 20000 chars]" for a long line and "[paste #1 +61
// lines]" for many lines, a short one as its text, in the box.
func pasteForm() screen.PasteForm {
	return screen.PasteForm{Folds: screen.PiFolds(), Composer: composerText}
}
