package screen

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naiveLines is the obvious reading of a capture: normalise "\r\n" and "\r"
// to "\n", drop the one newline that ends the text, split.
func naiveLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// TestLinesWalkBackwardsLikeANaiveSplit checks the word-at-a-time backward
// scan against the obvious forward split, on random captures of separators,
// escapes, tabs, multi-byte text and long runs (which take the fast path).
func TestLinesWalkBackwardsLikeANaiveSplit(t *testing.T) {
	pieces := []string{"\n", "\r", "\r\n", "\x1b[1m", "\x1b", "\t", "a", "•", "›", " ", "0123456789abcdefghij", "\x07", "\x7f", "é"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		want := naiveLines(s)
		var got []string
		ls := NewLines(s)
		for {
			raw, start, dirty, ok := ls.Prev()
			if !ok {
				break
			}
			if s[start:start+len(raw)] != raw {
				t.Fatalf("%q: line %q does not start at %d", s, raw, start)
			}
			if dirty != Dirty(raw) {
				t.Fatalf("%q: line %q dirty=%v, want %v", s, raw, dirty, Dirty(raw))
			}
			got = append(got, raw)
		}
		slices.Reverse(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", s, got, want)
		}
		if ls.N() != len(want) {
			t.Fatalf("%q: counted %d lines, want %d", s, ls.N(), len(want))
		}
	}
}

func TestNextLineWalksForward(t *testing.T) {
	s := "a\r\nb\rc\n\nd"
	var got []string
	for pos := 0; pos < len(s); {
		var raw string
		raw, pos = Next(s, pos)
		got = append(got, raw)
	}
	if want := []string{"a", "b", "c", "", "d"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCleanStripsEscapesOnlyOnItsLine(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"plain text   ", "plain text"},
		{"\x1b[1m›\x1b[0m \x1b[2mAsk Codex\x1b[0m", "› Ask Codex"},
		{"\x1b[38;2;137;180;250mtouch\x1b[39m x", "touch x"},
		{"\x1b]0;a title\x07after", "after"},
		{"\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"before\x1b]0;never terminated", "before"}, // ends with its line
		{"\x1b(Bcharset", "charset"},
		{"\x1b7saved\x1b8", "saved"},
		{"bell\x07 and\x08 backspace", "bell and backspace"},
		{"\x1b[", ""},
		{"\x1b", ""},
		{"tab\there", "tab\there"},
		{"\x1b[38;5;255mtext\x1b[39m        \x1b[0m\x1b[39m\x1b[49m          ", "text"},
		{"literal [1m at the end[0m", "literal [1m at the end[0m"},
		{"del\x7f and nbsp\u00a0 \u00a0", "del and nbsp"},
		{"\x1b]8;;x\x1b\\link\x1b]8;;\x1b\\", "link"},
	}
	for _, tc := range tests {
		var l Lines
		if got := l.Clean(tc.raw, Dirty(tc.raw)); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
	// Cleaned lines stay valid while more are cleaned (the arena only grows).
	var l Lines
	first := l.Clean("\x1b[1mfirst\x1b[0m", true)
	for range 200 {
		l.Clean("\x1b[2m"+strings.Repeat("x", 100)+"\x1b[0m", true)
	}
	if first != "first" {
		t.Errorf("an earlier cleaned line changed to %q", first)
	}
}

func TestTrimAndIndentCountNoBreakSpacesAsBlanks(t *testing.T) {
	if got, n := TrimLeft("\u00a0 \tx "); got != "x " || n != 3 {
		t.Errorf("TrimLeft: %q, %d", got, n)
	}
	if got := TrimRight("x \u00a0" + strings.Repeat(" ", 20)); got != "x" {
		t.Errorf("TrimRight: %q", got)
	}
	if got := DropIndent("\u00a0 \u00a0x", 2); got != "\u00a0x" {
		t.Errorf("DropIndent: %q", got)
	}
}

func TestRulesAndTitleSpinner(t *testing.T) {
	for s, want := range map[string]bool{
		strings.Repeat("─", 10): true, strings.Repeat("─", 9): false, strings.Repeat("─", 10) + "x": false, "": false,
	} {
		if IsRule(s, 10) != want {
			t.Errorf("IsRule(%q) = %v", s, !want)
		}
	}
	for title, want := range map[string]bool{"⠴ work": true, " ⣾ x": true, "\u2800 blank": false, "✳ Claude Code": false, "": false} {
		if BrailleSpinner(title) != want {
			t.Errorf("BrailleSpinner(%q) = %v", title, !want)
		}
	}
	for line, want := range map[string]bool{"* Type": true, ">": true, "! ls": true, "*x": false, "": false, "- a": false} {
		if Glyph(line, "*>!") != want {
			t.Errorf("Glyph(%q) = %v", line, !want)
		}
	}
	for option, want := range map[string]int{"1. Yes": 1, "12.\tNo": 2, "1.": 0, "1.x": 0, "x. y": 0, "": 0, "3 . z": 0} {
		if got := Numbered(option); got != want {
			t.Errorf("Numbered(%q) = %d, want %d", option, got, want)
		}
	}
	// A busy line's glyph: at the very start, the blank pattern is none.
	for line, want := range map[string]string{"⠼ Thinking...": " Thinking...", "⣿": "", "⠀ x": "-", " ⠼ x": "-", "Working": "-", "": "-"} {
		rest, ok := SpinnerGlyph(line)
		if got := map[bool]string{true: rest, false: "-"}[ok]; got != want {
			t.Errorf("SpinnerGlyph(%q) = %q, %v", line, rest, ok)
		}
	}
}

func TestPlainKeepsLinesAndDropsEscapes(t *testing.T) {
	got := Plain("\x1b[1ma\x1b[0m  \r\nb\x1b]0;t\x07\n\nc   ")
	if want := "a\nb\n\nc"; got != want {
		t.Errorf("Plain = %q, want %q", got, want)
	}
}
