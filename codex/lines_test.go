package codex

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
		ls := newLines(s)
		for {
			raw, start, dirty, ok := ls.prev()
			if !ok {
				break
			}
			if s[start:start+len(raw)] != raw {
				t.Fatalf("%q: line %q does not start at %d", s, raw, start)
			}
			if dirty != needsStrip(raw) {
				t.Fatalf("%q: line %q dirty=%v, want %v", s, raw, dirty, needsStrip(raw))
			}
			got = append(got, raw)
		}
		slices.Reverse(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\n got %q\nwant %q", s, got, want)
		}
		if ls.n != len(want) {
			t.Fatalf("%q: counted %d lines, want %d", s, ls.n, len(want))
		}
	}
}

func TestNextLineWalksForward(t *testing.T) {
	s := "a\r\nb\rc\n\nd"
	var got []string
	for pos := 0; pos < len(s); {
		var raw string
		raw, pos = nextLine(s, pos)
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
		{"\x1b]8;;x\x1b\\link\x1b]8;;\x1b\\", "link"},
	}
	for _, tc := range tests {
		var l lines
		if got := l.clean(tc.raw, needsStrip(tc.raw)); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
	// Cleaned lines stay valid while more are cleaned (the arena only grows).
	var l lines
	first := l.clean("\x1b[1mfirst\x1b[0m", true)
	for range 200 {
		l.clean("\x1b[2m"+strings.Repeat("x", 100)+"\x1b[0m", true)
	}
	if first != "first" {
		t.Errorf("an earlier cleaned line changed to %q", first)
	}
}
