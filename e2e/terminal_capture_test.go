package e2e

import (
	"testing"

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

// approvalStart starts a CLI with approval modes (Gemini CLI, Qwen Code)
// for a capture: the pane and terminal in c, asking before a command with
// ask, in approval mode when it is not "" (the CLI's own asking mode).
type approvalStart func(t *testing.T, c realcli.Common, ask bool, approval, root string) *rig

// in is the capture script s in env (the default terminal and modes when
// zero), starting its CLI with s.startIn.
func (s captureScript) in(env terminalEnv) captureScript {
	start := s.startIn
	s.sub, s.captured = env.folder(), env.captured("--yolo")
	s.start = func(t *testing.T, w, h int, ask bool, root string) *rig {
		approval := ""
		if ask {
			approval = env.ask
		}
		return start(t, realcli.Common{Width: w, Height: h, Terminal: env.terminal}, ask, approval, root)
	}
	return s
}

// inTerminals takes s's screens in each of captureTerminals, each in its
// own subtest and folder.
func (s captureScript) inTerminals(t *testing.T) {
	for _, env := range captureTerminals(s.autoEdit) {
		t.Run(env.name(), func(t *testing.T) { s.in(env).capture(t) })
	}
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
