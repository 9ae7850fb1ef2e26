package copilot

import (
	"regexp"
	"strconv"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// shellPlaceholder is the empty composer's text in shell mode.
const shellPlaceholder = "Execute shell command"

// box is the composer as the bottom of a capture shows it: its lines
// (the first without its "❯ " or "! ", the others without their two
// columns), and whether it is in shell mode. ok is false when no composer
// is at the bottom (a dialog, a screen of another program).
type box struct {
	lines []string
	shell bool
	ok    bool
}

// composerBox finds the composer between the two rules above the footer
// (screen.Bottom gives the last line first).
func composerBox(capture string) box {
	bottom := screen.Bottom(capture, composerLines+footerLines+2)
	i := 0
	for i < len(bottom) && bottom[i].Indent == 1 && !rule(bottom[i]) {
		i++ // the footer
	}
	if i == len(bottom) || !rule(bottom[i]) {
		return box{}
	}
	lower := i
	for i++; i < len(bottom) && !rule(bottom[i]); i++ {
	}
	if i == len(bottom) || i == lower+1 {
		return box{}
	}
	first := bottom[i-1]
	if !composerLine(first) {
		return box{}
	}
	b := box{ok: true, shell: strings.HasPrefix(first.T, "!")}
	b.lines = append(b.lines, draftLine(first.T))
	for j := i - 2; j > lower; j-- {
		b.lines = append(b.lines, screen.DropIndent(bottom[j].Text, 2))
	}
	return b
}

// empty reports a composer with nothing typed in it (the shell mode's
// placeholder aside).
func (b box) empty() bool {
	return len(b.lines) == 1 && (b.lines[0] == "" || b.shell && b.lines[0] == shellPlaceholder)
}

// composerMode reads shell mode: the composer starts with "!" (a typed or
// pasted "!" switches it at once; Enter would run the text in a shell).
func composerMode(capture string) string {
	if b := composerBox(capture); b.ok && b.shell {
		return screen.ShellMode
	}
	return ""
}

// clearKeys empties the composer and leaves shell mode, one line at a
// time: Ctrl-U empties the line, Backspace then joins it to the line
// above, or, on the first line, leaves shell mode. (Ctrl-C would empty it
// at once but arm "ctrl+c again to exit"; two Escapes on an empty
// composer open the rewind.) A wrapped line takes more rows than lines,
// so the keys are never too few; more do nothing on an empty composer.
func clearKeys(capture string) []string {
	b := composerBox(capture)
	switch {
	case !b.ok:
		return nil
	case b.empty() && b.shell:
		return []string{"BSpace"}
	case b.empty():
		return nil
	}
	var keys []string
	for range b.lines {
		keys = append(keys, "C-u", "BSpace")
	}
	return keys
}

// readDraft is the first line of the composer's draft ("" for none).
func readDraft(capture string) string {
	b := composerBox(capture)
	if !b.ok || b.empty() {
		return ""
	}
	return b.lines[0]
}

// fold is Copilot CLI's form of a long paste in the composer: "[Paste #1
// - 40 lines]".
var fold = regexp.MustCompile(`\[Paste #\d+ - (\d+) lines?\]`)

// saved is what Copilot CLI makes of a paste over about 20 KB: it saves it
// to a file of the session and the model gets a reference to that file
// ("<pasted_content file=… size=… />"), not the text.
var saved = regexp.MustCompile(`\[Saved pasted content to workspace \([0-9.]+ KB\) id=\d+\]`)

// readPaste reads the composer after text was pasted: one fold whose line
// count is text's is the prompt whole, as is a composer whose last line
// is text's last line; another count, several folds, or a paste saved to
// a file (the model would get the file's name, not the prompt) is wrong.
func readPaste(capture, text string) (handoff.Paste, string) {
	b := composerBox(capture)
	if !b.ok {
		return handoff.PasteUnread, ""
	}
	all := strings.Join(b.lines, "\n")
	if s := saved.FindString(all); s != "" {
		return handoff.PasteWrong, s
	}
	if folds := fold.FindAllStringSubmatch(all, -1); len(folds) > 0 {
		n, _ := strconv.Atoi(folds[0][1])
		if len(folds) == 1 && n == lineCount(text) {
			return handoff.PasteWhole, folds[0][0]
		}
		return handoff.PasteWrong, folds[0][0]
	}
	// A long line wraps (at a blank, which the row break takes), and a tab
	// is drawn as blanks: the composer's last row, blanks folded, ends
	// text's last line.
	want := fields(lastLine(text))
	got := fields(b.lines[len(b.lines)-1])
	switch {
	case got != "" && strings.HasSuffix(want, got):
		return handoff.PasteWhole, got
	case b.empty():
		return handoff.PasteArriving, ""
	}
	return handoff.PasteWrong, got
}

// fields is s with each run of blanks one space, trimmed.
func fields(s string) string { return strings.Join(strings.Fields(s), " ") }

// lastLine is the last non-blank line of text, trimmed.
func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, " \t\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// lineCount is how many lines the fold counts in text: a line break at
// its end starts no line ("A\nB\n" is 2).
func lineCount(text string) int { return strings.Count(strings.TrimRight(text, "\n"), "\n") + 1 }
