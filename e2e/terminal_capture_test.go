package e2e

import (
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// terminalEnv is one environment the real screens are taken in besides the
// default (a truecolor xterm): the terminal the CLI is told it runs in and
// the approval mode of the session that asks before a command (the main
// session runs with --yolo so the script's tool turns need no answer).
// tmux sets TERM but not COLORTERM, so a pane in an ordinary tmux has
// none: Gemini CLI and Qwen Code then draw less decoration.
type terminalEnv struct {
	terminal realcli.Terminal
	ask      string // "default", "auto_edit" ("auto-edit" for Qwen Code)
}

// captureTerminals are the environments TestCapture…Terminals take screens
// in; autoEdit is the CLI's name for the auto-edit approval mode.
func captureTerminals(autoEdit string) []terminalEnv {
	return []terminalEnv{
		{terminal: realcli.Terminal{Term: "xterm-256color"}, ask: "default"},
		{terminal: realcli.Terminal{Term: "tmux-256color"}, ask: autoEdit},
		{terminal: realcli.Terminal{Term: "screen-256color"}, ask: "default"},
		{terminal: realcli.Terminal{Term: "xterm-256color", ColorTerm: "truecolor", NoColor: true}, ask: autoEdit},
		{terminal: realcli.Terminal{Term: "tmux-256color", ColorTerm: "truecolor"}, ask: "default"},
	}
}

// name is the environment's name: the terminal's, then the asking mode.
func (e terminalEnv) name() string { return e.terminal.Name() + "-" + e.ask }

// folder is the fixtures' subfolder: none for the default environment.
func (e terminalEnv) folder() string {
	if e == (terminalEnv{}) {
		return ""
	}
	return "term-" + e.name()
}

// captured says how the screens were taken, for the manifest (nothing for
// the default environment).
func (e terminalEnv) captured(main string) string {
	if e == (terminalEnv{}) {
		return ""
	}
	t := e.terminal.OrDefault()
	colorterm := "COLORTERM unset"
	if t.ColorTerm != "" {
		colorterm = "COLORTERM=" + t.ColorTerm
	}
	if t.NoColor {
		colorterm += ", NO_COLOR=1"
	}
	return "in tmux with TERM=" + t.Term + ", " + colorterm + "; main session " + main + ", the asking session --approval-mode " + e.ask
}
