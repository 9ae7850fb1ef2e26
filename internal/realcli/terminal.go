package realcli

import "strings"

// Terminal is the terminal a CLI is told it runs in: TERM, COLORTERM and
// NO_COLOR. The CLIs choose their decoration from these (Gemini CLI and
// Qwen Code draw their composer's shaded frame only with COLORTERM set),
// so a classifier must be checked under more than one. The zero value is
// DefaultTerminal.
type Terminal struct {
	// Term is TERM: xterm-256color, tmux-256color, screen-256color …
	Term string
	// ColorTerm is COLORTERM ("truecolor"); "" leaves it unset, as tmux
	// does.
	ColorTerm string
	// NoColor sets NO_COLOR=1.
	NoColor bool
}

// DefaultTerminal is what the harness ran every CLI in before terminals
// could be chosen: a truecolor xterm.
var DefaultTerminal = Terminal{Term: "xterm-256color", ColorTerm: "truecolor"}

// OrDefault is t, or DefaultTerminal for the zero value.
func (t Terminal) OrDefault() Terminal {
	if t == (Terminal{}) {
		return DefaultTerminal
	}
	if t.Term == "" {
		t.Term = DefaultTerminal.Term
	}
	return t
}

// Env is the terminal's part of an environment.
func (t Terminal) Env() []string {
	t = t.OrDefault()
	env := []string{"TERM=" + t.Term}
	if t.ColorTerm != "" {
		env = append(env, "COLORTERM="+t.ColorTerm)
	}
	if t.NoColor {
		env = append(env, "NO_COLOR=1")
	}
	return env
}

// Name names the terminal in a folder name: "xterm-256color-truecolor",
// "tmux-256color", "xterm-256color-nocolor".
func (t Terminal) Name() string {
	t = t.OrDefault()
	parts := []string{t.Term}
	if t.ColorTerm != "" {
		parts = append(parts, t.ColorTerm)
	}
	if t.NoColor {
		parts = append(parts, "nocolor")
	}
	return strings.Join(parts, "-")
}

// String is the terminal as environment assignments, for notes.
func (t Terminal) String() string { return strings.Join(t.Env(), " ") }
