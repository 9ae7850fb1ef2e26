package cont

import (
	"regexp"
	"strconv"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerMode finds shell mode by the box's mark ("│ $ text" in place of
// "│ ● text").
func composerMode(capture string) string {
	if r := read(capture); r.sig.Chrome == screen.ChromeComposer && r.sig.Shell {
		return screen.ShellMode
	}
	return ""
}

// clearKeys: Ctrl-C empties the composer, whatever it holds and in shell
// mode too ("Ctrl+C Clear input"; Ctrl-U clears only the line the cursor
// is on). On an empty composer it arms "ctrl+c to exit" instead, and a
// second one quits: the driver clears only after a paste, so there is
// text, and it presses it once.
func clearKeys(string) []string { return []string{"C-c"} }

// composerText is what the box holds, its frame and mark ("● ", "$ ")
// cut: the lines top down.
func composerText(capture string) ([]string, bool) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer {
		return nil, false
	}
	n := len(r.inner)
	lines := make([]string, n)
	for i, ln := range r.inner {
		lines[n-1-i] = unframe(ln.Text)
	}
	lines[0] = screen.CutMark(lines[0], strings.TrimSpace(bullet), strings.TrimSpace(shellMark))
	return lines, true
}

// pasteForm is how Continue 1.5.47 shows a paste, read from its bundle
// and tried on the real CLI (testdata/paste): a paste of more than 800
// characters is folded, "[Paste #1, 60 lines]" for several lines (its
// lines), "[Paste #1]" for one line (no size shown); a shorter one is
// its text, in the box.
func pasteForm() screen.PasteForm {
	return screen.PasteForm{Folds: []screen.Fold{
		{Pattern: regexp.MustCompile(`\[Paste #\d+, (\d+) lines\]`), Size: screen.LineCount},
		{Pattern: oneLineFold},
	}, Composer: composerText,
		// Its hint, behind the cursor: "▋Ask anything, @ for context, …".
		Placeholder: screen.Prefixes(placeholder, strings.TrimPrefix(placeholder, "▋"))}
}

// oneLineFold is the fold of a paste of one line, which shows no size.
var oneLineFold = regexp.MustCompile(`\[Paste #\d+\]`)

// readPaste is pasteForm's reading, but for a fold of one line and a text
// of several: Continue folds several lines as "[Paste #1, N lines]", so a
// fold without a size is another paste's.
func readPaste(capture, text string) (handoff.Paste, string) {
	got, seen := pasteForm().Read(capture, text)
	if got == handoff.PasteWhole && oneLineFold.MatchString(seen) && screen.LineCount(strings.TrimRight(text, "\n")) > 1 {
		return handoff.PasteWrong, seen + " (a fold of one line; the prompt has " + strconv.Itoa(screen.LineCount(text)) + ")"
	}
	return got, seen
}
