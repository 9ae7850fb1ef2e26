package realcli

import "strings"

// Terminals are the terminals users run the CLIs in: tmux's own TERM
// values and xterm's, each without COLORTERM (tmux does not set it; a
// server started over SSH or by a service passes none), xterm with it,
// and NO_COLOR in a tmux pane.
var Terminals = []Terminal{
	{Term: "tmux-256color"},
	{Term: "screen-256color"},
	{Term: "xterm-256color"},
	{Term: "xterm-256color", ColorTerm: "truecolor"},
	{Term: "tmux-256color", NoColor: true},
}

// WithTerminal returns env with t's TERM, COLORTERM and NO_COLOR in place
// of its own. The zero Terminal leaves env as it is: each harness keeps
// the terminal it always ran its CLI in.
func WithTerminal(env []string, t Terminal) []string {
	if t == (Terminal{}) {
		return env
	}
	var out []string
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		if k != "TERM" && k != "COLORTERM" && k != "NO_COLOR" {
			out = append(out, e)
		}
	}
	return append(out, t.Env()...)
}

// Unset is what an inherited environment must lose so that the CLI sees t
// and not the test's own terminal (nothing for the zero Terminal).
func (t Terminal) Unset() []string {
	if t == (Terminal{}) {
		return nil
	}
	var u []string
	if t.ColorTerm == "" {
		u = append(u, "COLORTERM")
	}
	if !t.NoColor {
		u = append(u, "NO_COLOR")
	}
	return u
}
