package screen

import "testing"

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
