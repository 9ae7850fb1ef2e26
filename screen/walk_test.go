package screen

import (
	"strings"
	"testing"
)

// A walk counts every line it reads and the non-blank ones; Rest reads to
// the top.
func TestWalkCountsWhatItRead(t *testing.T) {
	var w Walk
	w.Init("top\n\n  middle\nlast\n")
	if ln, ok := w.Up(); !ok || ln.T != "last" || w.Scanned != 1 || w.NonBlank != 1 {
		t.Fatalf("first Up: %+v %v, scanned %d, non-blank %d", ln, ok, w.Scanned, w.NonBlank)
	}
	w.Rest()
	if w.Scanned != 4 || w.NonBlank != 3 {
		t.Fatalf("after Rest: scanned %d, non-blank %d; want 4 and 3", w.Scanned, w.NonBlank)
	}
	if _, ok := w.Up(); ok {
		t.Fatal("Up after Rest returned a line")
	}
}

// Text skips blank lines; a line Clean blanks is no text and not counted
// as one; Reset gives back the lines read past a mark, counts too.
func TestWalkTextCleanAndReset(t *testing.T) {
	var w Walk
	w.Clean = func(ln Line) Line {
		if ln.T == "┃" {
			ln.Text, ln.T = "", ""
		}
		return ln
	}
	w.Init("top\n┃\n\n  middle\n\nlast\n")
	if ln, ok := w.Text(); !ok || ln.T != "last" {
		t.Fatalf("first Text: %+v %v", ln, ok)
	}
	at := w.Mark()
	if ln, ok := w.Text(); !ok || ln.T != "middle" || w.Scanned != 3 || w.NonBlank != 2 {
		t.Fatalf("second Text: %+v %v, scanned %d, non-blank %d", ln, ok, w.Scanned, w.NonBlank)
	}
	w.Reset(at)
	if w.Scanned != 1 || w.NonBlank != 1 || w.N() != 1 {
		t.Fatalf("after Reset: scanned %d, non-blank %d, line %d; want 1, 1, 1", w.Scanned, w.NonBlank, w.N())
	}
	if ln, _ := w.Text(); ln.T != "middle" {
		t.Fatalf("Text after Reset: %+v", ln)
	}
	if ln, ok := w.Text(); !ok || ln.T != "top" || w.NonBlank != 3 {
		t.Fatalf("a cleaned bar is skipped: %+v %v, non-blank %d", ln, ok, w.NonBlank)
	}
	if _, ok := w.Text(); ok {
		t.Fatal("Text past the top returned a line")
	}
}

// A reading of cells runs its history pass where the chrome pass stopped,
// with the lines it did not take, and not at all over a dialog.
func TestCellsReadRunsTheHistoryUnlessADialog(t *testing.T) {
	for _, dialog := range []bool{false, true} {
		var c Cells
		var got []string
		c.Read("prompt\nanswer\ncomposer\n", func() ([]Line, bool) {
			ln, _ := c.Text()
			got = append(got, "chrome:"+ln.T)
			above, _ := c.Text()
			return []Line{above}, dialog
		}, func(above []Line) {
			h := History{Cells: &c, Above: above, Turn: &Turn{}}
			for ln, ok := h.Next(); ok; ln, ok = h.Next() {
				got = append(got, ln.T)
			}
		})
		want := "chrome:composer answer prompt"
		if dialog {
			want = "chrome:composer"
		}
		if strings.Join(got, " ") != want || c.Message != -1 {
			t.Errorf("dialog %v: read %q, message %d; want %q, -1", dialog, got, c.Message, want)
		}
	}
}

// Read counts the rest of a capture only when the bottom pass found no
// chrome.
func TestWalkReadCountsTheRestWithoutChrome(t *testing.T) {
	for _, chrome := range []bool{false, true} {
		var w Walk
		scanned := w.Read("a\n\nb\nc\n", func() bool {
			w.Up()
			return chrome
		})
		want := 4
		if chrome {
			want = 1
		}
		if scanned != want || w.Scanned != want {
			t.Errorf("chrome %v: read %d lines (Scanned %d), want %d", chrome, scanned, w.Scanned, want)
		}
	}
}
