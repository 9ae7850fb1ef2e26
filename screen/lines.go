// Package screen is the screen-reading toolkit every provider shares: a
// walk over a tmux capture from its last line up (the bottom of a screen
// says what an agent does now, so the cost follows what is looked at, not
// the scrollback), escape-sequence stripping line by line, blanks trimmed
// the way terminals pad lines, box-drawing rules, and the pane title's
// spinner. A provider package (codex/, claude/, gemini/, …) keeps only its
// own rules: which lines mean what, as one Provider value (the type is here,
// below every provider, so the registry can list them and nothing depends
// the wrong way); what they share is here too: the composer's delivery
// rules (Composer), the walk up a history of cells (History, Turn), the
// verdicts every provider reads the same way (Blocked, Settled, Verdict).
package screen

import "strings"

// Lines walks a capture from its last line to its first.
//
// "\n", "\r\n" and a lone "\r" all end a line. Escape sequences are removed
// line by line (Clean), so an unterminated sequence never swallows the next
// line. The zero value walks nothing; Init (or NewLines) gives it a capture.
type Lines struct {
	s   string
	end int // the line to return next ends here (exclusive); -1 when done
	n   int // lines returned so far: the number, counted from the end, of the last one

	// arena holds the cleaned text of lines that had escapes. Cleaned
	// lines are appended and never overwritten, so the strings handed out
	// stay valid; a strings.Builder gives them without copying. A full
	// block is replaced, not grown: the strings handed out keep it alive.
	arena strings.Builder
}

// NewLines returns a walk over s from its last line.
func NewLines(s string) *Lines {
	l := &Lines{}
	l.Init(s)
	return l
}

// Init starts a walk over s from its last line (cleaned lines already
// handed out stay valid).
func (l *Lines) Init(s string) {
	l.s, l.end, l.n = s, len(s), 0
	// The newline that ends the last line does not start another one.
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

// Capture is the text the walk reads.
func (l *Lines) Capture() string { return l.s }

// N is how many lines Prev returned: the number, counted from the end of
// the capture (1 = the last line), of the line it returned last.
func (l *Lines) N() int { return l.n }

// Mark is a place in the walk to go back to (Reset).
type Mark struct{ end, n int }

// Mark returns the current place of the walk.
func (l *Lines) Mark() Mark { return Mark{l.end, l.n} }

// Reset takes the walk back to m: the next Prev returns the line that
// followed the mark.
func (l *Lines) Reset(m Mark) { l.end, l.n = m.end, m.n }

// Prev returns the previous line: its raw text, the byte offset where it
// starts in the capture, and whether it holds an escape or another control
// character (then it needs Clean to be read). ok is false once the first
// line was returned.
func (l *Lines) Prev() (raw string, start int, dirty, ok bool) {
	if l.end < 0 {
		return "", 0, false, false
	}
	s := l.s
	i := l.end - 1
scan:
	for i >= 0 {
		// Sixteen bytes at a time while none of them matters: no control
		// byte at all, or — once the line is known to hold one — no line
		// separator.
		if i >= 15 {
			lo, hi := load64(s, i-15), load64(s, i-7)
			if dirty {
				if !hasSeparator(lo) && !hasSeparator(hi) {
					i -= 16
					continue
				}
			} else if !hasControl(lo) && !hasControl(hi) {
				i -= 16
				continue
			}
		}
		// Byte by byte through these sixteen (or the last few) bytes.
		for stop := max(i-16, -1); i > stop; i-- {
			if c := s[i]; c < 0x20 || c == 0x7f {
				if c == '\n' || c == '\r' {
					break scan
				}
				if c != '\t' {
					dirty = true
				}
			}
		}
	}
	raw, start = s[i+1:l.end], i+1
	l.n++
	switch {
	case i < 0:
		l.end = -1
	case s[i] == '\n' && i > 0 && s[i-1] == '\r':
		l.end = i - 1
	default:
		l.end = i
	}
	return raw, start, dirty, true
}

// Next returns the line of s starting at offset start (raw text) and the
// offset of the line after it (len(s) when there is none). It is the
// forward counterpart of Prev, to read a message top-down once the walk
// found where it starts.
func Next(s string, start int) (raw string, next int) {
	i := start
	for i < len(s) && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	raw = s[start:i]
	switch {
	case i >= len(s):
		next = len(s)
	case s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n':
		next = i + 2
	default:
		next = i + 1
	}
	return raw, next
}

// load64 reads the eight bytes of s at i, little-endian (the compiler turns
// this into one load).
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// hasControl reports whether any of the eight bytes in x is below 0x20 or
// DEL. Bytes of 0x80 and above (UTF-8) never count.
func hasControl(x uint64) bool {
	d := x ^ (0x7f * ones)
	return ((x-0x20*ones)&^x|(d-ones)&^d)&highs != 0
}

// hasSeparator reports whether any of the eight bytes in x may be '\n' or
// '\r'. It can answer true wrongly (when a byte right above one of them is
// 0x0b or 0x0e), never false wrongly: the caller then checks byte by byte.
func hasSeparator(x uint64) bool {
	n := x ^ ('\n' * ones)
	r := x ^ ('\r' * ones)
	return ((n-ones)&^n|(r-ones)&^r)&highs != 0
}

const ones, highs = 0x0101010101010101, 0x8080808080808080

// Dirty reports whether raw holds an escape or another control character
// (DEL included; tabs are white space, not control): what Prev reports of
// a line, for a line read with Next.
func Dirty(raw string) bool {
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		if !hasControl(load64(raw, i)) {
			continue
		}
		for _, c := range []byte(raw[i : i+8]) {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return true
			}
		}
	}
	for ; i < len(raw); i++ {
		if c := raw[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return true
		}
	}
	return false
}

// arenaBlock is the size of a fresh block of the cleaning arena.
const arenaBlock = 4096

// Clean returns the line's text without escape sequences, control
// characters or trailing blanks. A line that is not dirty is returned as is
// (no copy); a dirty one is written into the walk's arena (no allocation
// per line).
func (l *Lines) Clean(raw string, dirty bool) string {
	if !dirty {
		return TrimRight(raw)
	}
	// Captured lines are padded to the pane's width, often with colour
	// resets among the padding: drop that tail before copying.
	raw = trimRightRaw(raw)
	if l.arena.Cap()-l.arena.Len() < len(raw) {
		l.arena = strings.Builder{}
		l.arena.Grow(max(arenaBlock, len(raw)))
	}
	start := l.arena.Len()
	stripInto(&l.arena, raw)
	return TrimRight(l.arena.String()[start:])
}

// stripInto appends raw to b without escape sequences and control
// characters. It knows CSI (ESC [ … final), OSC/DCS/APC/PM/SOS strings
// (terminated by BEL or ESC \, or by the end of the line) and two- and
// three-byte escapes (ESC ( B, ESC 7, …). Tabs are kept.
func stripInto(b *strings.Builder, raw string) {
	i := 0
	for i < len(raw) {
		if raw[i] != 0x1b {
			// Copy the run of text up to the next control byte at once;
			// a control character other than ESC (rare) is dropped.
			j := i
			for j < len(raw) && (raw[j] >= 0x20 && raw[j] != 0x7f || raw[j] == '\t') {
				j++
			}
			b.WriteString(raw[i:j])
			if j < len(raw) && raw[j] != 0x1b {
				j++
			}
			i = j
			continue
		}
		i++ // ESC
		if i >= len(raw) {
			return
		}
		switch raw[i] {
		case '[': // CSI: parameters and intermediates, then one final byte
			i++
			for i < len(raw) && (raw[i] < 0x40 || raw[i] > 0x7e) && raw[i] >= 0x20 {
				i++ // a control byte (malformed) ends the sequence
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
		default: // ESC 7, ESC 8, ESC =, ESC >, ESC M, …
			i++
		}
	}
}

// trimRightRaw drops trailing blanks and the CSI sequences (colour
// changes, resets) among them: they put nothing on the screen.
func trimRightRaw(raw string) string {
	for {
		raw = TrimRight(raw)
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

// Plain returns a whole capture without escape sequences and control
// characters, its line breaks kept as "\n" and trailing blanks dropped:
// what a person sees, for harnesses and messages (the classifiers walk
// with Lines instead).
func Plain(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for pos := 0; pos < len(s); {
		raw, next := Next(s, pos)
		if Dirty(raw) {
			stripInto(&b, trimRightRaw(raw))
		} else {
			b.WriteString(TrimRight(raw))
		}
		if next > pos+len(raw) {
			b.WriteByte('\n')
		}
		pos = next
	}
	return b.String()
}

// Line is one line of a capture, cleaned, as the providers' passes read it.
type Line struct {
	Text   string // without escapes, control characters and trailing blanks; leading blanks kept
	T      string // Text without its leading blanks
	Indent int    // how many leading blanks (spaces, tabs, no-break spaces) there were
	N      int    // its number counted from the end (1 = last line; 0 when read forward)
	Start  int    // byte offset of the raw line in the capture
}

// PrevLine returns the previous line, cleaned (Prev, then Clean and
// TrimLeft). ok is false once the first line was returned.
func (l *Lines) PrevLine() (ln Line, ok bool) {
	raw, start, dirty, ok := l.Prev()
	if !ok {
		return Line{}, false
	}
	ln.Start, ln.N = start, l.n
	ln.Text = l.Clean(raw, dirty)
	ln.T, ln.Indent = TrimLeft(ln.Text)
	return ln, true
}

// LineAt reads the line that starts at offset start, cleaned, and returns
// the offset of the next line (len of the capture when there is none): to
// read a message top-down once the walk found where it starts.
func (l *Lines) LineAt(start int) (ln Line, next int) {
	raw, next := Next(l.s, start)
	ln.Start = start
	ln.Text = l.Clean(raw, Dirty(raw))
	ln.T, ln.Indent = TrimLeft(ln.Text)
	return ln, next
}

// Message reads a message top-down, for the fallback path, once a walk
// found the line it starts on (at offset start; first is that line's text
// after its glyph). Each line below is kept without indent columns, blank
// ones included, until ends reports a non-blank line that starts something
// else; clean, when set, rewrites each line first (a scrollbar drawn at its
// end). Trailing blank lines are dropped, and the result is "" when no text
// is left. It copies what it keeps: the result does not hold the capture.
func (l *Lines) Message(start int, first string, indent int, ends func(Line) bool, clean func(Line) Line) string {
	out := []string{first}
	_, pos := Next(l.s, start)
	for pos < len(l.s) {
		ln, next := l.LineAt(pos)
		pos = next
		if clean != nil {
			ln = clean(ln)
		}
		if ln.T == "" {
			out = append(out, "")
			continue
		}
		if ends(ln) {
			break
		}
		out = append(out, DropIndent(ln.Text, indent))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Clone(strings.Join(out, "\n"))
}

// JoinBottomUp joins a cell's first line with its continuation lines,
// which a bottom-up walk collected in reverse, and cuts the result to max
// bytes (Excerpt): an error that wraps over several lines, as one text.
func JoinBottomUp(first string, cont []Line, max int) string {
	var b strings.Builder
	b.WriteString(first)
	for i := len(cont) - 1; i >= 0; i-- {
		b.WriteByte(' ')
		b.WriteString(cont[i].T)
	}
	return strings.Clone(Excerpt(b.String(), max))
}
