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
