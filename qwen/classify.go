// Package qwen reads the screen of Qwen Code (0.24.4), as captured from a
// tmux pane, into a terminal status (idle, processing, completed,
// waiting_user_answer, error), and extracts the last assistant message for
// the fallback path.
//
// Qwen Code is a fork of Gemini CLI with its own screen. From the bottom
// up: the footer ("➜ work · fake-model", the mode line "YOLO mode (shift +
// tab to cycle)", "Enter to steer · Ctrl+Q to queue" while a turn runs),
// the composer ("*" in YOLO mode or ">" then the placeholder or a draft)
// at column 0 between two full-width rules, and above it the busy line while a turn
// runs ("⠋<phrase>... (1s · ↑ 62 tokens · esc to cancel)", wrapped in
// narrow panes) and the history, everything two columns in: user prompts
// ("> text"), messages ("◆︎ text"), tool calls ("✓ Shell …", "⊶ Shell …"
// running, "x Shell …" refused), errors ("✕ [API Error: 400 …]") and notes
// ("●︎ …"); continuation lines four columns in. While a turn's output is
// taller than the pane the history is a viewport with a scrollbar in the
// last column. A confirmation replaces the composer: "Allow execution of:
// 'echo'?", "› 1. Yes, allow once", …, "⠏ Waiting for user
// confirmation...". The pane title is "Qwen - work", with a half-disc
// spinner before it while a turn runs ("◐︎ Qwen - work").
//
// Only positive signs make a screen busy (the busy line, the spinning
// title); text it does not know is neutral. The history is read up to the
// last user prompt, so the cost does not grow with the scrollback.
package qwen

import (
	"strings"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonDialog        = "a confirmation waits for a choice (numbered options, '› 1. Yes, allow once')"
	ReasonBusy          = "the busy line (a spinner and 'esc to cancel') sits above the composer: a turn is running"
	ReasonTitleSpinning = "the pane title spins: a turn is running"
)

// Cell kinds, reported in Signals.Newest and Signals.Reply.
const (
	CellNote = "note" // "●︎ …"
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	TitleSpinning bool `json:"title_spinning"`
	LinesScanned  int  `json:"lines_scanned"`
	screen.ChromeSignals
	DialogLine int `json:"dialog_line"`
	// Turn: the last prompt, the newest cell after it, the bottom-most
	// reply, an error.
	screen.Turn
}

type reading struct {
	sig Signals
	screen.Cells
}

// read reads capture without the scrollbar Qwen Code draws in the last
// column (unbar).
func read(capture string) *reading {
	r := &reading{}
	r.Clean = unbar
	r.Read(capture, r.chrome, r.history)
	r.sig.LinesScanned = r.N()
	return r
}

// Decide turns the reading into a status; a spinning title is a sign of
// work.
func (r *reading) Decide(title string) (handoff.Status, string) {
	r.sig.TitleSpinning = TitleSpinning(title)
	if st, reason, ok := screen.Blocked(r.Capture(), r.NonBlank, r.sig.Chrome, ReasonDialog); ok {
		return st, reason
	}
	s := &r.sig
	switch {
	case s.Busy != "":
		return handoff.StatusProcessing, ReasonBusy
	case s.TitleSpinning:
		return handoff.StatusProcessing, ReasonTitleSpinning
	}
	return s.Settled(s.Chrome)
}

// How far up the chrome pass looks.
const (
	footerLines   = 6  // footer lines under the composer (they wrap in narrow panes)
	composerLines = 30 // a draft of many lines
	dialogLines   = 40 // a confirmation with a long command in it
)

// chrome reads the footer and the composer; without them, a confirmation
// dialog. It returns the lines read that are not chrome (newest first) for
// the history pass, and whether the bottom is a dialog.
//
// The composer is found by what it says and where it is: the one line at
// column 0 (everything else is two columns in) that starts with "*", ">"
// or "!", under the footer. The rules drawn above and below it are
// decoration, skipped wherever they are drawn: a terminal is free to draw
// less (Gemini CLI, which Qwen Code forked, drops its composer's frame
// without COLORTERM).
func (r *reading) chrome() ([]screen.Line, bool) {
	r.sig.Chrome = screen.ChromeNone
	var seen []screen.Line
	for {
		ln, ok := r.Text()
		if !ok {
			return seen, r.dialog(seen)
		}
		if rule(ln) {
			continue
		}
		seen = append(seen, ln)
		switch {
		case composerLine(ln):
			r.sig.Chrome = screen.ChromeComposer
			r.sig.Composer, r.sig.ComposerLine = screen.Signal(strings.TrimLeft(strings.TrimLeft(ln.T, ">*!"), " ")), ln.N
			return nil, false
		case len(seen) > footerLines+composerLines || prompt(ln):
			// No composer under a prompt: read no further up for one.
			return seen, r.dialog(seen)
		}
	}
}

// composerLine reports the composer's first line: at column 0, "*" (YOLO
// mode), ">" or "!" (shell mode), then blanks and the placeholder or a
// draft.
func composerLine(ln screen.Line) bool { return ln.Indent == 0 && screen.Glyph(ln.T, "*>!") }

// dialog looks for a highlighted numbered option ("› 1. Yes, allow once") among the bottom lines (those
// already read and up to dialogLines more).
func (r *reading) dialog(seen []screen.Line) bool {
	opt, ln, ok := r.DialogOption(seen, dialogLines, prompt, highlightedOption)
	if ok {
		r.sig.Chrome, r.sig.Dialog, r.sig.DialogLine = screen.ChromeDialog, screen.Signal(opt), ln.N
	}
	return ok
}

// highlightedOption reports "› 1. text" and returns "1. text".
func highlightedOption(t string) (string, bool) {
	rest, ok := strings.CutPrefix(t, "› ")
	if !ok {
		return "", false
	}
	return rest, screen.Numbered(rest) > 0
}

// prompt reports a user prompt's first line: "> text", two columns in.
func prompt(ln screen.Line) bool { return ln.Indent == 2 && strings.HasPrefix(ln.T, "> ") }

// rule reports a full-width rule at column 0.
func rule(ln screen.Line) bool { return ln.Indent == 0 && screen.IsRule(ln.T, 10) }

// history walks up from the composer to the last user prompt: first the
// busy line, then the cells (two columns in) and their continuation lines.
func (r *reading) history(above []screen.Line) {
	h := screen.History{Cells: &r.Cells, Above: above, Turn: &r.sig.Turn}
	busy := func(ln screen.Line) bool {
		if !busyLine(ln.T) {
			return false
		}
		r.sig.Busy, r.sig.BusyLine = screen.Signal(ln.T), ln.N
		return true
	}
	h.ReadCells(2, busy, func(ln screen.Line) (string, bool) { return strings.TrimPrefix(ln.T, "> "), prompt(ln) }, cell, CellNote)
}

// unbar drops the scrollbar Qwen Code draws in the last column while the
// history is taller than the pane ("│" track, "█" thumb) and the blanks
// before it.
func unbar(ln screen.Line) screen.Line {
	t := strings.TrimSuffix(strings.TrimSuffix(ln.Text, "│"), "█")
	if len(t) == len(ln.Text) {
		return ln
	}
	ln.Text = screen.TrimRight(t)
	ln.T, ln.Indent = screen.TrimLeft(ln.Text)
	return ln
}

// busyLine reports the busy line: a braille spinner glyph, then the phrase
// ("⠋Have you tried… (1s · esc to cancel)"; the end may wrap).
func busyLine(t string) bool {
	_, ok := screen.SpinnerGlyph(t)
	return ok
}

// cell says what a line two columns in starts, and its text after the
// glyph (and the glyph's text variation selector).
func cell(t string) (kind, text string) {
	g, size := utf8.DecodeRuneInString(t)
	rest := strings.TrimPrefix(t[size:], "\ufe0e")
	if rest != "" && rest[0] != ' ' {
		return screen.CellOther, t
	}
	rest = strings.TrimLeft(rest, " ")
	switch g {
	case '◆':
		return screen.CellMessage, rest
	case '●':
		return CellNote, rest
	case '✕':
		if strings.HasPrefix(rest, "[") {
			return screen.CellError, rest
		}
		return screen.CellTool, rest
	case '✓', '⊶', '⊷', 'x', '?', '-', 'o':
		if rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
			return screen.CellTool, rest
		}
	}
	return screen.CellOther, t
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }
