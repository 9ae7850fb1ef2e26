package realcli

// Terminal is the terminal a CLI is told it runs in. The same CLI draws
// different screens for different TERM, COLORTERM and NO_COLOR values
// (Gemini CLI drops its composer's frame without COLORTERM), and tmux sets
// none of COLORTERM or NO_COLOR: a pane started over SSH or by a service has
// whatever the server was started with. The zero Terminal is the harness's
// own default.
type Terminal struct {
	// Name names the terminal in fixture folders ("tmux-256color").
	Name string
	// Term is TERM; "" keeps the harness's default.
	Term string
	// ColorTerm is COLORTERM; "" leaves it unset.
	ColorTerm string
	// NoColor sets NO_COLOR=1.
	NoColor bool
}

// IsZero reports the harness's default terminal.
func (t Terminal) IsZero() bool { return t == Terminal{} }

// Env is t as environment entries.
func (t Terminal) Env() []string {
	env := []string{"TERM=" + t.Term}
	if t.ColorTerm != "" {
		env = append(env, "COLORTERM="+t.ColorTerm)
	}
	if t.NoColor {
		env = append(env, "NO_COLOR=1")
	}
	return env
}

// Unset is what an inherited environment must lose so the CLI sees t and
// not the test's own terminal.
func (t Terminal) Unset() []string {
	var u []string
	if t.ColorTerm == "" {
		u = append(u, "COLORTERM")
	}
	if !t.NoColor {
		u = append(u, "NO_COLOR")
	}
	return u
}

// Terminals are the terminals users run the CLIs in: tmux's own TERM
// values and xterm's, each without COLORTERM (tmux does not set it), xterm
// with it, and NO_COLOR.
var Terminals = []Terminal{
	{Name: "tmux-256color", Term: "tmux-256color"},
	{Name: "screen-256color", Term: "screen-256color"},
	{Name: "xterm-256color", Term: "xterm-256color"},
	{Name: "xterm-256color-truecolor", Term: "xterm-256color", ColorTerm: "truecolor"},
	{Name: "no-color", Term: "tmux-256color", NoColor: true},
}

// WithTerminal returns env with the entries of t in place of its own TERM,
// COLORTERM and NO_COLOR (env unchanged for the zero Terminal).
func WithTerminal(env []string, t Terminal) []string {
	if t.IsZero() {
		return env
	}
	var out []string
	for _, e := range env {
		switch {
		case hasKey(e, "TERM"), hasKey(e, "COLORTERM"), hasKey(e, "NO_COLOR"):
		default:
			out = append(out, e)
		}
	}
	return append(out, t.Env()...)
}

func hasKey(entry, key string) bool {
	return len(entry) > len(key) && entry[:len(key)] == key && entry[len(key)] == '='
}
