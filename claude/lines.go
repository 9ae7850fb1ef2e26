package claude

import (
	"strings"
	"unicode/utf8"
)

// lines walks a capture from its last line to its first. The classifier
// looks at the bottom of a capture (the chrome, then the history down to
// the last prompt), so walking backwards keeps the cost proportional to
// what is looked at, not to the scrollback.
//
// "\n", "\r\n" and a lone "\r" all end a line. Escape sequences are removed
// line by line, so an unterminated sequence never swallows the next line.
type lines struct {
	s   string
	end int // the line to return next ends here (exclusive); -1 when done
	n   int // lines returned so far: the number, from the end, of the last one

	// arena holds the cleaned text of lines that had escapes. Cleaned lines
	// are appended and never overwritten, so the strings handed out stay
	// valid; a strings.Builder gives them without copying.
	arena strings.Builder
}

func newLines(s string) *lines {
	l := &lines{}
	l.init(s)
	return l
}

func (l *lines) init(s string) {
	l.s, l.end = s, len(s)
	if l.end > 0 && s[l.end-1] == '\n' {
		l.end--
	}
	if l.end > 0 && s[l.end-1] == '\r' {
		l.end--
	}
	if len(s) == 0 {
		l.end = -1
	}
}

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
	if l.end < 0 {
		return line{}, false
	}
	s := l.s
	i := l.end - 1
	for i >= 0 && s[i] != '\n' && s[i] != '\r' {
		i--
	}
	raw := s[i+1 : l.end]
	ln.start = i + 1
	l.n++
	ln.n = l.n
	switch {
	case i < 0:
		l.end = -1
	case s[i] == '\n' && i > 0 && s[i-1] == '\r':
		l.end = i - 1
	default:
		l.end = i
	}
	ln.text = l.clean(raw)
	ln.t, ln.indent = trimLeft(ln.text)
	return ln, true
}

// forward reads the line that starts at offset start (raw) and returns it
// cleaned, with the offset of the next line (len(s) when there is none).
func (l *lines) forward(start int) (ln line, next int) {
	s := l.s
	i := start
	for i < len(s) && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	raw := s[start:i]
	switch {
	case i >= len(s):
		next = len(s)
	case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
		next = i + 2
	default:
		next = i + 1
	}
	ln.start = start
	ln.text = l.clean(raw)
	ln.t, ln.indent = trimLeft(ln.text)
	return ln, next
}

// clean returns raw without escape sequences and control characters, and
// without trailing blanks. A line without control bytes is returned as is.
func (l *lines) clean(raw string) string {
	dirty := false
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c < 0x20 && c != '\t' || c == 0x7f {
			dirty = true
			break
		}
	}
	if !dirty {
		return trimRight(raw)
	}
	// Captured lines are padded to the pane's width, often with colour
	// changes among the padding: drop that tail before copying.
	raw = trimRightRaw(raw)
	if l.arena.Cap()-l.arena.Len() < len(raw) {
		// A new block; the strings handed out keep the old one alive.
		l.arena = strings.Builder{}
		l.arena.Grow(max(2048, len(raw)))
	}
	start := l.arena.Len()
	b := &l.arena
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != 0x1b {
			j := i
			for j < len(raw) && (raw[j] >= 0x20 && raw[j] != 0x7f || raw[j] == '\t') {
				j++
			}
			b.WriteString(raw[i:j])
			if j == i {
				j++ // a control character other than ESC: dropped
			}
			i = j
			continue
		}
		i++ // ESC
		if i >= len(raw) {
			break
		}
		switch raw[i] {
		case '[': // CSI: parameters and intermediates, then one final byte
			i++
			for i < len(raw) && (raw[i] < 0x40 || raw[i] > 0x7e) && raw[i] >= 0x20 {
				i++
			}
			if i < len(raw) && raw[i] >= 0x40 && raw[i] <= 0x7e {
				i++
			}
		case ']', 'P', '_', '^', 'X': // string sequences: up to BEL or ST
			i++
			for i < len(raw) {
				if raw[i] == 0x07 {
					i++
					break
				}
				if raw[i] == 0x1b && i+1 < len(raw) && raw[i+1] == '\\' {
					i += 2
					break
				}
				i++
			}
		case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ': // designators: one more byte
			i += 2
		default: // ESC 7, ESC 8, ESC =, …
			i++
		}
	}
	return trimRight(l.arena.String()[start:])
}

// trimRightRaw drops trailing blanks and the CSI sequences (colour
// changes, resets) among them: they put nothing on the screen.
func trimRightRaw(raw string) string {
	for {
		raw = trimRight(raw)
		n := len(raw)
		if n < 3 || raw[n-1] < 0x40 || raw[n-1] > 0x7e {
			return raw
		}
		i := n - 2
		for i >= 0 && raw[i] >= '0' && raw[i] <= '?' { // parameters: 0-9 : ; < = > ?
			i--
		}
		if i < 1 || raw[i] != '[' || raw[i-1] != 0x1b {
			return raw
		}
		raw = raw[:i-1]
	}
}

// nbsp is U+00A0, which Claude Code puts after the composer's "❯" and the
// tree elbow "⎿".
const nbsp = "\u00a0"

// trimLeft drops leading spaces, tabs and no-break spaces and says how many
// columns they took.
func trimLeft(s string) (string, int) {
	i, n := 0, 0
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t':
			i++
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0xa0:
			i += 2
		default:
			return s[i:], n
		}
		n++
	}
	return s[i:], n
}

// trimRight drops trailing spaces, tabs and no-break spaces.
func trimRight(s string) string {
	i := len(s)
	for i > 0 {
		switch c := s[i-1]; {
		case c == ' ' || c == '\t':
			i--
		case c == 0xa0 && i >= 2 && s[i-2] == 0xc2:
			i -= 2
		default:
			return s[:i]
		}
	}
	return s[:i]
}

// excerpt shortens a line for the signals, at a rune boundary, and copies
// it (a cleaned line lives in scratch space).
func excerpt(s string) string { return excerptN(s, 160) }

// excerptN is excerpt with a limit of max bytes.
func excerptN(s string, max int) string {
	if len(s) > max {
		i := max
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	return strings.Clone(s)
}
