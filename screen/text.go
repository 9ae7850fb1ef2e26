package screen

import (
	"strings"
	"unicode/utf8"
)

// NBSP is U+00A0, the no-break space some CLIs draw after a glyph (Claude
// Code's composer "❯", its tree elbow "⎿"). It counts as a blank.
const NBSP = "\u00a0"

// TrimRight drops trailing blanks: spaces, tabs and no-break spaces.
func TrimRight(s string) string {
	i := len(s)
	// Captures pad lines to the pane's width: skip eight spaces at a time.
	for i >= 8 && load64(s, i-8) == ' '*ones {
		i -= 8
	}
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

// TrimLeft drops leading blanks (spaces, tabs, no-break spaces) and says
// how many there were: the line's indentation in columns.
func TrimLeft(s string) (string, int) {
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

// DropIndent removes up to n leading blanks (a message's continuation
// indentation).
func DropIndent(s string, n int) string {
	for ; n > 0; n-- {
		switch {
		case strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\t"):
			s = s[1:]
		case strings.HasPrefix(s, NBSP):
			s = s[len(NBSP):]
		default:
			return s
		}
	}
	return s
}

// Excerpt shortens s to at most max bytes, at a rune boundary, for the
// signals a classifier reports. It does not copy: a cleaned line lives in
// its walk's arena, which the excerpt then keeps alive.
func Excerpt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// Glyph reports a line that is one of glyphs (ASCII characters) alone or
// followed by a space: a composer's "*", ">" or "!" before its text, a
// prompt's ">".
func Glyph(t, glyphs string) bool {
	return t != "" && strings.IndexByte(glyphs, t[0]) >= 0 && (len(t) == 1 || t[1] == ' ')
}

// Numbered is how many digits start s when they number an option, "1. Yes"
// (digits, a dot, a space or tab): the options of the CLIs' menus and
// dialogs. 0 when s is no numbered option.
func Numbered(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i+1 >= len(s) || s[i] != '.' || (s[i+1] != ' ' && s[i+1] != '\t') {
		return 0
	}
	return i
}

// IsRule reports a line drawn with the box-drawing "─" (U+2500) only, at
// least min of them: the rules CLIs draw around their composer.
func IsRule(t string, min int) bool {
	const h = "─"
	if len(t) < min*len(h) || len(t)%len(h) != 0 {
		return false
	}
	for i := 0; i < len(t); i += len(h) {
		if t[i] != 0xe2 || t[i+1] != 0x94 || t[i+2] != 0x80 {
			return false
		}
	}
	return true
}

// BrailleSpinner reports a pane title (leading blanks ignored) whose first
// rune is a braille pattern other than the blank U+2800: the spinner agent
// CLIs put in the title while a turn runs.
func BrailleSpinner(title string) bool {
	t, _ := TrimLeft(title)
	return len(t) >= 3 && t[0] == 0xe2 && t[1] >= 0xa0 && t[1] <= 0xa3 && !(t[1] == 0xa0 && t[2] == 0x80)
}

// SpinnerGlyph reports whether s starts with a braille pattern other than
// the blank U+2800 (a frame of the spinner CLIs draw on their busy line,
// "⠼ Thinking..."), and returns the rest of s after it.
func SpinnerGlyph(s string) (rest string, ok bool) {
	if !BrailleSpinner(s[:min(len(s), 3)]) {
		return s, false
	}
	return s[3:], true
}
