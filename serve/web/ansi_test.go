package web

import (
	"reflect"
	"testing"
)

// A capture's colours become each span's style; other escape sequences
// are dropped; markup stays text (the page sets it as text).
func TestStyledKeepsColoursAndDropsOtherEscapes(t *testing.T) {
	got := Styled("\x1b[1;31mred bold\x1b[0m plain\x1b]0;title\x07 <b>x</b>\n\x1b[38;5;196mc256\x1b[39m \x1b[48;2;1;2;3mrgb\x1b[m\x1b[2K\n")
	want := [][]Span{
		{{Text: "red bold", FG: "#f14c4c", Bold: true}, {Text: " plain <b>x</b>"}},
		{{Text: "c256", FG: "#ff0000"}, {Text: " "}, {Text: "rgb", BG: "#010203"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Styled:\n got %+v\nwant %+v", got, want)
	}
}

// Each attribute's code sets it and 20 more clears it (22 clears bold and
// dim); reverse swaps the colours, the defaults drawn; bright colours are
// the palette's second half, 39 and 49 the defaults again.
func TestStyledSetsAndClearsAttributesAndColours(t *testing.T) {
	got := Styled("\x1b[1;2;3;4mA\x1b[22mB\x1b[23;24;7mC\x1b[27;91;104mD\x1b[39mE\x1b[49;38;2;1;2;3mF\x1b[38;7mG\n")
	want := [][]Span{{
		{Text: "A", Bold: true, Dim: true, Italic: true, Underline: true},
		{Text: "B", Italic: true, Underline: true},
		{Text: "C", FG: "#1e1e1e", BG: "#d4d4d4"},
		{Text: "D", FG: palette16[9], BG: palette16[12]},
		{Text: "E", BG: palette16[12]},
		{Text: "F", FG: "#010203"},
		{Text: "G", FG: "#1e1e1e", BG: "#d4d4d4"}, // 38 then no colour: the default
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Styled:\n got %+v\nwant %+v", got, want)
	}
}

// The classifier's "X_line" signals mark their lines, counted from the end.
func TestLineMarksReadTheSignalsLineNumbers(t *testing.T) {
	m := lineMarks(struct {
		ReplyLine  int    `json:"reply_line"`
		PromptLine int    `json:"prompt_line"`
		ErrorLine  int    `json:"error_line"`
		Lines      int    `json:"lines_scanned"`
		Reply      string `json:"reply"`
	}{ReplyLine: 3, PromptLine: 1, Lines: 30, Reply: "message"})
	want := map[int][]string{3: {"reply"}, 1: {"prompt"}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("marks %v, want %v", m, want)
	}
}
