package screen

// Walk is a walk over a capture from its last line up that counts what it
// read: every line (Scanned) and the non-blank ones (NonBlank), which a
// classifier's signals report and the empty-screen check (Blocked) needs.
type Walk struct {
	Lines
	Scanned, NonBlank int
	// Clean, when set, rewrites each line Up reads before it is counted:
	// a scrollbar a CLI draws in the last column is no text.
	Clean func(Line) Line
}

// Up returns the previous line, cleaned (Lines.PrevLine, then Clean), and
// counts it; ok is false once the first line was returned.
func (w *Walk) Up() (Line, bool) {
	ln, ok := w.PrevLine()
	if ok {
		if w.Clean != nil {
			ln = w.Clean(ln)
		}
		w.Scanned++
		if ln.T != "" {
			w.NonBlank++
		}
	}
	return ln, ok
}

// Text returns the next non-blank line up (Up, blank lines skipped); ok is
// false once the first line was read.
func (w *Walk) Text() (Line, bool) {
	for {
		if ln, ok := w.Up(); !ok || ln.T != "" {
			return ln, ok
		}
	}
}

// WalkMark is a place in a walk and its counts there (Walk.Mark).
type WalkMark struct {
	at                Mark
	scanned, nonBlank int
}

// Mark returns the current place of the walk with its counts.
func (w *Walk) Mark() WalkMark { return WalkMark{w.Lines.Mark(), w.Scanned, w.NonBlank} }

// Reset takes the walk back to m, its counts too: lines read past a mark
// and given back are read again, not counted twice.
func (w *Walk) Reset(m WalkMark) {
	w.Lines.Reset(m.at)
	w.Scanned, w.NonBlank = m.scanned, m.nonBlank
}

// Read starts the walk over capture and runs chrome, a provider's pass up
// from the bottom; when it finds no chrome (false), the rest of the
// capture is read to its top (Rest). It returns how many lines were read.
func (w *Walk) Read(capture string, chrome func() bool) (scanned int) {
	w.Init(capture)
	if !chrome() {
		w.Rest()
	}
	return w.Scanned
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
