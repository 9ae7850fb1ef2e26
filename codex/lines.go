package codex

import "strings"

// lines walks a capture from its last line to its first. The classifier only
// looks at the end of a capture (down to the last user message), so walking
// backwards keeps the cost proportional to what is looked at, not to the
// scrollback.
//
// "\n", "\r\n" and a lone "\r" all end a line. Escape sequences are removed
// line by line, so an unterminated sequence can never swallow the next line.
type lines struct {
	s   string
	end int // the line to return next ends here (exclusive); -1 when done
	n   int // lines returned so far: the number, counted from the end, of the last one

	// arena holds the cleaned text of lines that had escape sequences.
	// Cleaned lines are appended and never overwritten, so the strings handed
	// out stay valid; a strings.Builder gives them without copying.
	arena strings.Builder
}

func newLines(s string) *lines {
	l := &lines{s: s, end: len(s)}
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
	return l
}

// prev returns the previous line: its raw text, the byte offset where it
// starts in the capture, and whether it holds an escape or another C0
// control character (then it needs clean). ok is false when the first line
// was returned.
func (l *lines) prev() (raw string, start int, dirty, ok bool) {
	if l.end < 0 {
		return "", 0, false, false
	}
	s := l.s
	i := l.end - 1
scan:
	for i >= 0 {
		// Sixteen bytes at a time while none of them matters: no control
		// byte at all, or — once the line is known to hold an escape — no
		// line separator.
		if i >= 15 {
			lo, hi := load64(s, i-15), load64(s, i-7)
			if dirty {
				if !hasSeparator(lo) && !hasSeparator(hi) {
					i -= 16
					continue
				}
			} else if !hasByteBelow20(lo) && !hasByteBelow20(hi) {
				i -= 16
				continue
			}
		}
		// Byte by byte through these sixteen (or the last few) bytes.
		for stop := max(i-16, -1); i > stop; i-- {
			if c := s[i]; c < 0x20 {
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

// load64 reads the eight bytes of s at i, little-endian (the compiler turns
// this into one load).
func load64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// hasByteBelow20 reports whether any of the eight bytes in x is below 0x20.
// Bytes of 0x80 and above (UTF-8) never count.
func hasByteBelow20(x uint64) bool {
	return (x-0x20*ones)&^x&highs != 0
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

// nextLine returns the line starting at offset start (raw text) and the
// offset of the line after it (len(s) when there is none). It is the forward
// counterpart of prev, used to read a message top-down once it was found.
func nextLine(s string, start int) (raw string, next int) {
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

// clean returns the line's text without escape sequences, control
// characters or trailing white space. A line that is not dirty is returned
// as is (no copy).
func (l *lines) clean(raw string, dirty bool) string {
	if !dirty {
		return trimRightSpace(raw)
	}
	// Captured lines are padded to the pane's width, often with colour
	// resets among the padding: drop that tail before copying.
	raw = trimRightRaw(raw)
	start := l.arena.Len()
	if l.arena.Cap() == 0 {
		l.arena.Grow(max(4096, len(raw)))
	}
	l.arena.Grow(len(raw))
	stripInto(&l.arena, raw)
	return trimRightSpace(l.arena.String()[start:])
}

// needsStrip reports whether raw holds an escape or another C0 control
// character (tabs are white space, not control).
func needsStrip(raw string) bool {
	i := 0
	for ; i+8 <= len(raw); i += 8 {
		if !hasByteBelow20(load64(raw, i)) {
			continue
		}
		for _, c := range []byte(raw[i : i+8]) {
			if c < 0x20 && c != '\t' {
				return true
			}
		}
	}
	for ; i < len(raw); i++ {
		if c := raw[i]; c < 0x20 && c != '\t' {
			return true
		}
	}
	return false
}

// stripInto appends raw to b without escape sequences and control
// characters. It knows CSI (ESC [ … final), OSC/DCS/APC/PM/SOS strings
// (terminated by BEL or ESC \, or by the end of the line) and two- and
// three-byte escapes (ESC ( B, ESC 7, …). Tabs are kept.
func stripInto(b *strings.Builder, raw string) {
	i := 0
	for i < len(raw) {
		if raw[i] != 0x1b {
			// Copy the run of text up to the next escape at once; other
			// control characters (rare) are dropped.
			j := i
			for j < len(raw) && (raw[j] >= 0x20 || raw[j] == '\t') {
				j++
			}
			b.WriteString(raw[i:j])
			if j < len(raw) && raw[j] != 0x1b {
				j++ // a control character other than ESC
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
			for i < len(raw) && (raw[i] < 0x40 || raw[i] > 0x7e) {
				if raw[i] < 0x20 { // malformed: stop before the control byte
					break
				}
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
		default: // ESC 7, ESC 8, ESC =, ESC >, ESC M, …
			i++
		}
	}
}

// trimRightRaw drops trailing white space and the CSI sequences (colour
// changes, resets) among it: they put nothing on the screen.
func trimRightRaw(raw string) string {
	for {
		raw = trimRightSpace(raw)
		n := len(raw)
		if n < 3 || raw[n-1] < 0x40 || raw[n-1] > 0x7e {
			return raw
		}
		i := n - 2
		for i >= 0 && (raw[i] >= '0' && raw[i] <= '?') { // parameters: 0-9 : ; < = > ?
			i--
		}
		if i < 1 || raw[i] != '[' || raw[i-1] != 0x1b {
			return raw
		}
		raw = raw[:i-1]
	}
}

// trimRightSpace drops trailing spaces and tabs.
func trimRightSpace(s string) string {
	i := len(s)
	// Captures pad lines to the pane's width: skip eight spaces at a time.
	for i >= 8 && load64(s, i-8) == ' '*ones {
		i -= 8
	}
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}

// trimLeftSpace drops leading spaces and tabs and says how many there were.
func trimLeftSpace(s string) (string, int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:], i
}
