package screen

// DialogOption looks for a dialog's chosen option at the bottom of a
// screen whose composer was not found: first among seen (the lines already
// read, newest first), then among up to max-len(seen) lines further up. A
// user prompt ends the search, since a dialog above it is an earlier
// turn's and history. option reads a line's text as the chosen option and
// returns what it says ("1. Yes"); prompt reports a user prompt.
//
// It returns the option and its line, with ls after that line; or ok false
// and ls where it was.
func (l *Lines) DialogOption(seen []Line, max int, prompt func(Line) bool, option func(t string) (string, bool)) (opt string, at Line, ok bool) {
	for _, ln := range seen {
		if prompt(ln) {
			return "", Line{}, false
		}
		if opt, ok := option(ln.T); ok {
			return opt, ln, true
		}
	}
	mark := l.Mark()
	for range max - len(seen) {
		ln, more := l.PrevLine()
		if !more || prompt(ln) {
			break
		}
		if ln.T == "" {
			continue
		}
		if opt, ok := option(ln.T); ok {
			return opt, ln, true
		}
	}
	l.Reset(mark)
	return "", Line{}, false
}
