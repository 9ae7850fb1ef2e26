package gemini

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// The glyphs of Gemini CLI 0.61.0's screen.
const (
	upperHalf     = "▄" // U+2584: the rule above the composer and above each user prompt
	lowerHalf     = "▀" // U+2580: the rule below them
	boxTop        = "╭" // a tool's (or a confirmation's) rounded box
	boxBottom_    = "╰"
	boxSide       = "│"
	messageGlyph  = "✦" // an assistant message
	errorGlyph    = "✕" // an error
	noteGlyph     = "ℹ" // a note: "Request cancelled.", "This request failed…"
	optionCursor  = "●" // the highlighted option of a confirmation
	queuedHeader  = "Queued (press ↑ to edit):"
	shortcutsHint = "? for shortcuts" // the status line of an idle composer
	footerHeader  = "workspace (/directory)"
)

// halfRule reports a line of one half-block glyph only, at least ten long.
func halfRule(t, glyph string) bool {
	if len(t) < 10*len(glyph) || len(t)%len(glyph) != 0 {
		return false
	}
	for i := 0; i < len(t); i += len(glyph) {
		if t[i:i+len(glyph)] != glyph {
			return false
		}
	}
	return true
}

// decoration reports a line drawn for looks only: a half-block rule (the
// frame of the composer and of each prompt when COLORTERM is set).
func decoration(ln screen.Line) bool {
	return ln.Indent == 0 && (halfRule(ln.T, upperHalf) || halfRule(ln.T, lowerHalf))
}

// ruleLine reports a "───" rule at column 0: the one above the mode line, and
// (with NO_COLOR) the composer's frame.
func ruleLine(ln screen.Line) bool { return ln.Indent == 0 && screen.IsRule(ln.T, 10) }

// promptLine reports a user prompt's first line in the history: ">" one
// column in (at column 0 with NO_COLOR, where the frame's padding goes
// too), then its text.
func promptLine(ln screen.Line) bool {
	return ln.Indent <= 1 && screen.Glyph(ln.T, ">")
}

// boxBottom reports the bottom border of a rounded box.
func boxBottom(t string) bool { return strings.HasPrefix(t, boxBottom_) }

// composerLine reports the composer's first line: "*" (YOLO mode), ">" or
// "!" (shell mode), then the placeholder or a draft, one column in.
func composerLine(ln screen.Line) bool { return ln.Indent == 1 && screen.Glyph(ln.T, "*>!") }

// highlightedOption returns the text of a box line "│ ● 1. Allow once │".
func highlightedOption(t string) (string, bool) {
	rest, ok := strings.CutPrefix(t, boxSide)
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " ")
	rest, ok = strings.CutPrefix(rest, optionCursor+" ")
	if !ok {
		return "", false
	}
	if screen.Numbered(rest) == 0 {
		return "", false
	}
	return strings.TrimRight(strings.TrimSuffix(strings.TrimRight(rest, " "), boxSide), " "), true
}

// busyLine reports the status line of a running turn, one column in: a
// spinner glyph, the phrase, "(esc to cancel, 4s)", and at most the
// shortcuts hint after it — " ⠼ Thinking... (esc to cancel, 4s)". A
// message's continuation line (two columns in) never is one.
func busyLine(ln screen.Line) bool {
	if ln.Indent != 1 {
		return false
	}
	if rest, ok := screen.SpinnerGlyph(ln.T); !ok || !strings.HasPrefix(rest, " ") {
		return false
	}
	_, rest, ok := strings.Cut(ln.T, "(esc to cancel")
	if !ok {
		return false
	}
	_, after, ok := strings.Cut(rest, ")")
	after = strings.TrimSpace(after)
	return ok && (after == "" || after == "? for shortcuts")
}

// Cell kinds the history pass tells apart besides the reported ones.
const (
	cellPart = "part" // a line inside a tool's box
	cellNote = "note" // "ℹ …"
)

// cell says what a line at column 0 starts, and its text after the glyph.
func cell(t string) (kind, text string) {
	glyph := func(g string) (string, bool) {
		rest, ok := strings.CutPrefix(t, g)
		if !ok || (rest != "" && rest[0] != ' ') {
			return "", false
		}
		return strings.TrimLeft(rest, " "), true
	}
	if rest, ok := glyph(messageGlyph); ok {
		return screen.CellMessage, rest
	}
	if rest, ok := glyph(errorGlyph); ok {
		return screen.CellError, rest
	}
	if rest, ok := glyph(noteGlyph); ok {
		return cellNote, rest
	}
	switch {
	case strings.HasPrefix(t, boxTop):
		return screen.CellTool, t
	case strings.HasPrefix(t, boxSide), strings.HasPrefix(t, boxBottom_):
		return cellPart, t
	}
	return screen.CellOther, t
}

// titleSignal reads the pane title Gemini CLI sets (trailing blanks
// aside): a glyph, a word, the folder.
func titleSignal(title string) string {
	t, _ := screen.TrimLeft(screen.TrimRight(title))
	switch {
	case t == "":
		return TitleNone
	case strings.HasPrefix(t, "✋") || strings.Contains(t, "Action Required"):
		return TitleAction
	case strings.HasPrefix(t, "✦") || screen.BrailleSpinner(t):
		return TitleWorking
	case strings.HasPrefix(t, "◇"):
		return TitleReady
	}
	return TitleOther
}
