package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lines is the shared bottom-up walk (screen.Lines), handing out each line
// cleaned and split into indentation and text, as the passes read them.
type lines struct{ screen.Lines }

// line is one line of the capture, cleaned.
type line struct {
	text   string // without escapes, control characters and trailing blanks; leading blanks kept
	t      string // text without its leading blanks
	indent int    // how many leading blanks (spaces, tabs, no-break spaces) there were
	n      int    // its number counted from the end (1 = last line)
	start  int    // byte offset of the raw line in the capture
}

// prev returns the previous line, cleaned. ok is false once the first line
// was returned.
func (l *lines) prev() (ln line, ok bool) {
	raw, start, dirty, ok := l.Prev()
	if !ok {
		return line{}, false
	}
	ln.start, ln.n = start, l.N()
	ln.text = l.Clean(raw, dirty)
	ln.t, ln.indent = screen.TrimLeft(ln.text)
	return ln, true
}

// forward reads the line that starts at offset start (raw) and returns it
// cleaned, with the offset of the next line (len(s) when there is none).
func (l *lines) forward(start int) (ln line, next int) {
	raw, next := screen.Next(l.Capture(), start)
	ln.start = start
	ln.text = l.Clean(raw, screen.Dirty(raw))
	ln.t, ln.indent = screen.TrimLeft(ln.text)
	return ln, next
}

// excerpt shortens a line for the signals, at a rune boundary, and copies
// it (a cleaned line lives in the walk's arena).
func excerpt(s string) string { return excerptN(s, 160) }

// excerptN is excerpt with a limit of max bytes.
func excerptN(s string, max int) string { return strings.Clone(screen.Excerpt(s, max)) }
