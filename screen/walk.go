package screen

// Walk is a walk over a capture from its last line up that counts what it
// read: every line (Scanned) and the non-blank ones (NonBlank), which a
// classifier's signals report and the empty-screen check (Blocked) needs.
type Walk struct {
	Lines
	Scanned, NonBlank int
}

// Up returns the previous line, cleaned (Lines.PrevLine), and counts it;
// ok is false once the first line was returned.
func (w *Walk) Up() (Line, bool) {
	ln, ok := w.PrevLine()
	if ok {
		w.Scanned++
		if ln.T != "" {
			w.NonBlank++
		}
	}
	return ln, ok
}

// Rest reads what is left up to the capture's first line, counting it: a
// capture whose chrome was not found is read to its top, so that a screen
// of blanks only is told from one with text.
func (w *Walk) Rest() {
	for {
		if _, ok := w.Up(); !ok {
			return
		}
	}
}
