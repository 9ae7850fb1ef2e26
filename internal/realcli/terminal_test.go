package realcli

import (
	"slices"
	"testing"
)

func TestTerminalEnv(t *testing.T) {
	tests := []struct {
		term Terminal
		env  []string
		name string
	}{
		// The zero value is what every fixture before terminals were chosen
		// was taken in.
		{Terminal{}, []string{"TERM=xterm-256color", "COLORTERM=truecolor"}, "xterm-256color-truecolor"},
		// What an ordinary tmux pane has: no COLORTERM.
		{Terminal{Term: "tmux-256color"}, []string{"TERM=tmux-256color"}, "tmux-256color"},
		{Terminal{ColorTerm: "truecolor", NoColor: true}, []string{"TERM=xterm-256color", "COLORTERM=truecolor", "NO_COLOR=1"}, "xterm-256color-truecolor-nocolor"},
	}
	for _, tc := range tests {
		if got := tc.term.Env(); !slices.Equal(got, tc.env) {
			t.Errorf("%+v: env %q, want %q", tc.term, got, tc.env)
		}
		if got := tc.term.Name(); got != tc.name {
			t.Errorf("%+v: name %q, want %q", tc.term, got, tc.name)
		}
	}
}
