package web

import (
	"fmt"
	"strconv"
	"strings"
)

// Span is a run of a screen line's text in one style: the board draws it
// as a text node in a styled element, so nothing on a screen is markup.
// Colours are CSS hex colours the board computed from the terminal's
// codes ("" is the terminal's default).
type Span struct {
	Text      string `json:"t"`
	FG        string `json:"fg,omitempty"`
	BG        string `json:"bg,omitempty"`
	Bold      bool   `json:"b,omitempty"`
	Dim       bool   `json:"d,omitempty"`
	Italic    bool   `json:"i,omitempty"`
	Underline bool   `json:"u,omitempty"`
}

// style is the SGR state while a line is read.
type style struct {
	fg, bg string
	attrs  attr
}

// attr is a set of the text attributes the board draws.
type attr uint8

const (
	bold attr = 1 << iota
	dim
	italic
	under
	reverse
)

// The SGR codes of the attributes: each sets its own, and 20 more clears
// it (22 clears bold and dim alike).
var (
	sgrSets   = map[int]attr{1: bold, 2: dim, 3: italic, 4: under, 7: reverse}
	sgrClears = map[int]attr{22: bold | dim, 23: italic, 24: under, 27: reverse}
)

func (s style) has(a attr) bool { return s.attrs&a != 0 }

func (s style) span(text string) Span {
	fg, bg := s.fg, s.bg
	if s.has(reverse) {
		fg, bg = bg, fg
		if fg == "" {
			fg = "#1e1e1e"
		}
		if bg == "" {
			bg = "#d4d4d4"
		}
	}
	return Span{Text: text, FG: fg, BG: bg, Bold: s.has(bold), Dim: s.has(dim), Italic: s.has(italic), Underline: s.has(under)}
}

// The 16 colours of the terminal (a dark theme's, as the board draws the
// screen on a dark background).
var palette16 = [16]string{
	"#1e1e1e", "#f14c4c", "#23d18b", "#e5e510", "#3b8eea", "#d670d6", "#29b8db", "#cccccc",
	"#767676", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
}

// colour256 is xterm's 256-colour palette as a CSS colour.
func colour256(n int) string {
	switch {
	case n < 16:
		return palette16[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + v*40
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	case n < 256:
		v := 8 + (n-232)*10
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
	return ""
}

// Styled splits a capture taken with its escape sequences (capture-pane
// -e) into lines of spans: the SGR codes (colours, bold, …) become each
// span's style; every other escape sequence is dropped; the text is kept
// as it is. A line's style carries on to the next, as in the terminal.
func Styled(capture string) [][]Span {
	capture = strings.TrimSuffix(capture, "\n")
	var out [][]Span
	var st style
	for _, line := range strings.Split(capture, "\n") {
		var spans []Span
		var text strings.Builder
		flush := func() {
			if text.Len() > 0 {
				spans = append(spans, st.span(text.String()))
				text.Reset()
			}
		}
		for i := 0; i < len(line); {
			c := line[i]
			if c != 0x1b {
				if c == '\r' || c < 0x20 && c != '\t' || c == 0x7f {
					i++ // a control character shows as nothing
					continue
				}
				text.WriteByte(c)
				i++
				continue
			}
			n, params, final := escape(line[i:])
			if final == 'm' {
				flush()
				st = st.apply(params)
			}
			i += n
		}
		flush()
		out = append(out, spans)
	}
	return out
}

// escape reads the escape sequence at the start of s (s[0] is ESC): its
// length, and for a CSI sequence its parameters and final byte (0 for any
// other sequence).
func escape(s string) (n int, params string, final byte) {
	if len(s) < 2 {
		return len(s), "", 0
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1, s[2:j], s[j]
			}
		}
		return len(s), "", 0
	case ']', 'P', '_', '^':
		// A string up to BEL or ST (ESC \).
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1, "", 0
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2, "", 0
			}
		}
		return len(s), "", 0
	}
	return 2, "", 0
}

// apply is the style after the SGR parameters params.
func (s style) apply(params string) style {
	if params == "" {
		return style{}
	}
	f := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	num := func(i int) int {
		if i >= len(f) {
			return -1
		}
		v, err := strconv.Atoi(f[i])
		if err != nil {
			return -1
		}
		return v
	}
	for i := 0; i < len(f); i++ {
		switch p := num(i); {
		case p == 0:
			s = style{}
		case sgrSets[p] != 0:
			s.attrs |= sgrSets[p]
		case sgrClears[p] != 0:
			s.attrs &^= sgrClears[p]
		case p >= 30 && p <= 39 || p >= 90 && p <= 97:
			i = colour(&s.fg, p-30, num, i)
		case p >= 40 && p <= 49 || p >= 100 && p <= 107:
			i = colour(&s.bg, p-40, num, i)
		}
	}
	return s
}

// colour sets c from an SGR colour code n counted from the foreground's 30
// (the background's 40): 0-7 and 60-67 the palette's two halves, 9 the
// default, 8 an extended colour in the parameters after the i-th (5 and an
// index, or 2 and r, g, b). It returns the index of the last parameter
// read.
func colour(c *string, n int, num func(int) int, i int) int {
	switch {
	case n >= 0 && n <= 7:
		*c = palette16[n]
	case n >= 60 && n <= 67:
		*c = palette16[n-60+8]
	case n == 9:
		*c = ""
	case n == 8:
		*c = ""
		switch num(i + 1) {
		case 5:
			*c = colour256(num(i + 2))
			return i + 2
		case 2:
			if r, g, b := num(i+2), num(i+3), num(i+4); r >= 0 && g >= 0 && b >= 0 {
				*c = fmt.Sprintf("#%02x%02x%02x", r&255, g&255, b&255)
			}
			return i + 4
		}
	}
	return i
}
