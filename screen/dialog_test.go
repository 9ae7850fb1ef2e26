package screen

import (
	"strings"
	"testing"
)

// A dialog's chosen option is found above the lines already read, but not
// above the last user prompt: a dialog there was an earlier turn's.
func TestDialogOptionStopsAtThePrompt(t *testing.T) {
	prompt := func(ln Line) bool { return strings.HasPrefix(ln.T, "> ") }
	option := func(t string) (string, bool) { return strings.CutPrefix(t, "› ") }
	for _, c := range []struct {
		name, capture string
		want          string
	}{
		{"below the prompt", "> do it\n  Allow?\n  › 1. Yes\n  2. No\n\n", "1. Yes"},
		{"above the prompt", "  › 1. Yes\n> do it\n  working\n", ""},
	} {
		var l Lines
		l.Init(c.capture)
		ln, _ := l.PrevLine()
		opt, _, ok := l.DialogOption([]Line{ln}, 10, prompt, option)
		if opt != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.name, opt, ok, c.want)
		}
		if !ok {
			if got, _ := l.PrevLine(); got.N != 2 {
				t.Errorf("%s: not found, but the lines were not put back (next line %d %q)", c.name, got.N, got.T)
			}
		}
	}
}
