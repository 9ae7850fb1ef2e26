package cline

import (
	"slices"
	"strconv"
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Cline 3.0.65's composer, tried on the real CLI: '/' first makes a slash
// command (a typed or pasted one opens the command menu above the
// composer, and Enter runs it: "/clear" starts a new session); '!' stays
// text (the model gets it) and '@' mentions a file. Ctrl-C empties a
// composer that holds text, but quits Cline when it is empty; Esc does
// not empty it. A paste of five lines or more is folded into "[first
// words… Pasted +N lines]" (a second one adds "… #2]"), N counting every
// CR and LF as a line break and a last line break as none; shorter ones
// show whole, two columns in under "❯ ".
const (
	placeholder      = "Ask anything..."
	placeholderFresh = "What can I do for you?"
	slashMode        = "slash command ('/': Enter would run the message as a Cline command)"
	foldOpen         = "["
	foldMid          = "... Pasted +"
	foldClose        = " lines]"
)

// composerText is the composer's text as the screen shows it, its lines
// without the "❯ " and the two columns of indentation (the lines between
// the two rules at the bottom); ok is false when there is no composer.
func composerText(capture string) (lines []string, ok bool) {
	var ls screen.Lines
	ls.Init(capture)
	rules, nonBlank := 0, 0
	for {
		ln, more := ls.PrevLine()
		if !more {
			// A text longer than the pane pushes the upper rule out of
			// sight: what is under the lower rule's top is the composer.
			if rules == 1 && len(lines) > 0 {
				slices.Reverse(lines)
				return lines, true
			}
			return nil, false
		}
		ln = unbar(ln)
		switch {
		case screen.IsRule(ln.T, 20):
			rules++
			if rules == 2 {
				slices.Reverse(lines)
				return lines, len(lines) > 0
			}
		case rules == 1:
			t := ln.T
			if c, cut := strings.CutPrefix(t, promptMark); cut {
				t = c
			}
			lines = append(lines, t)
		case ln.T != "":
			if nonBlank++; nonBlank > chromeBudget {
				return nil, false
			}
		}
	}
}

// readMode is the composer's Read: a message that starts with '/' is a
// command.
func readMode(capture string) string {
	lines, ok := composerText(capture)
	if ok && strings.HasPrefix(lines[0], "/") {
		return slashMode
	}
	return ""
}

// empty reports a composer that shows its placeholder (or none at all).
func empty(lines []string, ok bool) bool {
	return !ok || (len(lines) == 1 && (lines[0] == "" || lines[0] == placeholder || lines[0] == placeholderFresh))
}

// clearKeys empties the composer: Ctrl-C when it holds text, nothing when
// it is empty (Ctrl-C there quits Cline). The Escapes after it (harmless
// on an empty composer) give Cline time to redraw before the driver looks
// again: a loaded machine showed the old text 300 ms after the Ctrl-C, a
// second Ctrl-C followed, and Cline quit. Ctrl-U and Backspace are no
// cure: Cline's editor moves the cursor to a line's start on Backspace.
func clearKeys(capture string) []string {
	if empty(composerText(capture)) {
		return nil
	}
	return []string{"C-c", "Escape", "Escape", "Escape", "Escape"}
}

// readDraft is the first line of a draft the composer holds.
func readDraft(capture string) string {
	lines, ok := composerText(capture)
	if empty(lines, ok) {
		return ""
	}
	return lines[0]
}

// pastedLines is how many lines Cline's fold says a paste of text has:
// every CR and LF breaks a line, and a last LF adds none.
func pastedLines(text string) int {
	text = strings.TrimSuffix(text, "\n")
	return strings.Count(text, "\n") + strings.Count(text, "\r") + 1
}

// readPaste reads the composer after text was pasted into it: a fold whose
// size is text's own, or text shown whole (its last line ends the
// composer), is PasteWhole; another size or several folds is PasteWrong;
// the placeholder or only a part of the text is PasteArriving.
func readPaste(capture, text string) (handoff.Paste, string) {
	lines, ok := composerText(capture)
	if !ok {
		return handoff.PasteUnread, ""
	}
	if empty(lines, ok) {
		return handoff.PasteArriving, lines[0]
	}
	joined := strings.Join(lines, " ")
	if strings.HasPrefix(joined, foldOpen) && strings.Contains(joined, foldMid) {
		if strings.Count(joined, foldMid) != 1 || !strings.HasSuffix(joined, foldClose) {
			return handoff.PasteWrong, screen.Signal(joined) // several folds: "… #2]"
		}
		i := strings.LastIndex(joined, foldMid)
		n, err := strconv.Atoi(strings.TrimSuffix(joined[i+len(foldMid):], foldClose))
		if err != nil || n != pastedLines(text) {
			return handoff.PasteWrong, screen.Signal(joined)
		}
		return handoff.PasteWhole, screen.Signal(joined)
	}
	last := strings.TrimRight(lines[len(lines)-1], " ")
	end := strings.TrimRight(text, " \n")
	if last != "" && strings.HasSuffix(end, last) {
		return handoff.PasteWhole, screen.Signal(last)
	}
	return handoff.PasteArriving, screen.Signal(last)
}
