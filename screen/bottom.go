package screen

// Bottom returns up to n non-blank lines from the end of a capture, cleaned,
// the last line first: what a provider looks at to recognise its own
// CLI's chrome.
func Bottom(capture string, n int) []Line {
	var l Lines
	l.Init(capture)
	var out []Line
	for len(out) < n {
		ln, ok := l.PrevLine()
		if !ok {
			break
		}
		if ln.T != "" {
			out = append(out, ln)
		}
	}
	return out
}
