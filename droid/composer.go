package droid

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// bashMode is the mode line of droid's bash mode.
const bashMode = "Bash mode active"

// composerMode finds bash mode by its mode line above the composer.
func composerMode(capture string) string {
	r := read(capture)
	if r.sig.Chrome == screen.ChromeComposer && strings.HasPrefix(r.sig.Mode, bashMode) {
		return screen.ShellMode
	}
	return ""
}

// clearKeys: Esc leaves bash mode and keeps the text, Esc Esc empties a
// composer that holds text. Not Ctrl-C: it empties the composer and arms
// "Press Ctrl+C again to exit", and a second one quits droid; not Esc Esc
// on an empty composer either, which opens the rewind to an earlier
// message (the driver clears only after a paste, so there is text).
func clearKeys(capture string) []string {
	if composerMode(capture) != "" {
		return []string{"Escape", "Escape", "Escape"}
	}
	return []string{"Escape", "Escape"}
}

// composerText is what the composer holds, its lines joined by line
// breaks (a long line wraps inside the box: read as shown), and the box's
// width: "" and 0 when no composer is at the bottom.
func composerText(capture string) (lines []string, width int, ok bool) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer || len(r.inner) == 0 {
		return nil, 0, false
	}
	for i := len(r.inner) - 1; i >= 0; i-- {
		t := strings.TrimPrefix(r.inner[i].Text, boxSide)
		t = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(t, " "), boxSide), " ")
		if i == len(r.inner)-1 {
			t = strings.TrimPrefix(strings.TrimPrefix(t, " >"), " ")
		} else {
			t = strings.TrimPrefix(t, "   ")
		}
		lines = append(lines, t)
	}
	return lines, r.width, true
}

// readPaste reads the composer after text was pasted. droid shows a short
// paste as it is, and folds a long one (more than about eight lines, or
// about 400 characters) into "[<its start, line breaks as blanks>... N
// lines]" (", paste K]" after an earlier paste of the session), where N
// counts the lines as the pane's width wraps them: the fold is the
// prompt's when its start is the prompt's and N is the prompt's count.
func readPaste(capture, text string) (handoff.Paste, string) {
	lines, width, ok := composerText(capture)
	if !ok {
		return handoff.PasteUnread, ""
	}
	shown := strings.TrimSpace(strings.Join(lines, " "))
	if shown == "" || placeholder(shown) {
		return handoff.PasteArriving, shown
	}
	if strings.HasPrefix(shown, "[") && strings.HasSuffix(shown, "]") {
		return readFold(shown, text, width)
	}
	want := lastLine(text)
	last := strings.TrimSpace(lines[len(lines)-1])
	switch {
	case want != "" && strings.HasSuffix(want, last) && strings.HasPrefix(firstLine(text), strings.TrimSpace(lines[0])):
		return handoff.PasteWhole, screen.Signal(last)
	case strings.HasPrefix(firstLine(text), strings.TrimSpace(lines[0])):
		return handoff.PasteArriving, screen.Signal(last)
	}
	return handoff.PasteWrong, screen.Signal(shown)
}

// placeholder reports the empty composer's suggestion, one of thirteen
// droid 0.225.2 picks from: twelve 'Try "…"', one 'Type "Review this code
// for security issues"'.
func placeholder(shown string) bool {
	return strings.HasPrefix(shown, `Try "`) || strings.HasPrefix(shown, `Type "`)
}

// readFold checks a fold against the prompt: one fold, its start the
// prompt's, its count of lines the prompt's at width.
func readFold(shown, text string, width int) (handoff.Paste, string) {
	inner := strings.TrimSuffix(strings.TrimPrefix(shown, "["), "]")
	if strings.Contains(inner, "[") {
		return handoff.PasteWrong, screen.Signal(shown) // several folds
	}
	start, size, ok := strings.Cut(inner, "... ")
	if i := strings.LastIndex(inner, "... "); ok && i >= 0 {
		start, size = inner[:i], inner[i+len("... "):]
	}
	size, _, _ = strings.Cut(size, ",")
	if !ok {
		return handoff.PasteWrong, screen.Signal(shown)
	}
	count, _, _ := strings.Cut(size, " ")
	n, err := strconv.Atoi(count)
	if err != nil || !strings.HasPrefix(size, count+" l") {
		// droid draws a prompt of zero-width characters a column off, so
		// the fold's own words can come out overwritten ("17 lin s"): a
		// size it cannot read is no reading at all.
		return handoff.PasteUnread, screen.Signal(shown)
	}
	// The start is compared with its blanks folded: droid draws a tab as
	// blanks.
	flat := strings.Join(strings.Fields(text), " ")
	if !strings.HasPrefix(flat, strings.Join(strings.Fields(start), " ")) {
		return handoff.PasteWrong, screen.Signal(shown)
	}
	// A tab's width in droid's count is its own: any from 1 to 8 columns;
	// a zero-width character may count as a column or as none.
	for _, zw := range []int{1, 0} {
		for tab := 1; tab <= 8; tab++ {
			if n == wrappedLines(text, width, tab, zw) {
				return handoff.PasteWhole, screen.Signal(shown)
			}
		}
	}
	return handoff.PasteWrong, screen.Signal(shown)
}

// wrappedLines is how many lines text takes at width columns, a tab tab
// columns wide and a zero-width character (Unicode's Cf) zeroWidth, as
// droid counts a fold: each line at least one.
func wrappedLines(text string, width, tab, zeroWidth int) int {
	if width <= 0 {
		return -1
	}
	n := 0
	for _, ln := range strings.Split(text, "\n") {
		cols := utf8.RuneCountInString(ln) + strings.Count(ln, "\t")*(tab-1)
		for _, r := range ln {
			if unicode.Is(unicode.Cf, r) {
				cols += zeroWidth - 1
			}
		}
		n += max(1, (cols+width-1)/width)
	}
	return n
}

func firstLine(text string) string {
	t := strings.TrimLeft(text, "\n")
	f, _, _ := strings.Cut(t, "\n")
	return strings.TrimSpace(f)
}

func lastLine(text string) string {
	t := strings.TrimRight(text, "\n ")
	return strings.TrimSpace(t[strings.LastIndexByte(t, '\n')+1:])
}
