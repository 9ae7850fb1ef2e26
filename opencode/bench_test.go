package opencode

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in escapes like those OpenCode 1.18.33 emits (as
// captured with capture-pane -e): 24-bit colours, a background per box.
func paint(line string) string {
	if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "┃") {
		return "  \x1b[38;2;92;156;245m┃\x1b[38;2;255;255;255m\x1b[48;2;20;20;20m" + t[len("┃"):] + strings.Repeat(" ", 20) + "\x1b[48;2;10;10;10m"
	}
	return "\x1b[38;2;238;238;238m" + line + "\x1b[38;2;255;255;255m" + strings.Repeat(" ", 10)
}

var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      session,
	History: []string{
		"", "  ┃", "  ┃  Please look at the parser and tell me what it does with trailing commas", "  ┃", "",
		"  ┃", "  ┃  $ cat parser.go", "  ┃", "",
		"     The parser accepts trailing commas in lists and objects. Nothing runs;",
		"     esc interrupt is not shown.",
		"",
		footer(true),
	},
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted:  conformance.Join(promptLines("Summarise what you changed"), ls("     I changed three things:", "", "     1. the lexer keeps positions", "", footer(true)), chrome(folder)),
		handoff.StatusProcessing: conformance.Join(promptLines("Summarise what you changed"), ls("     I changed three things:", "", footer(false)), chrome(hint)),
		// After turns OpenCode is idle only without its composer
		// (another screen in its place); the first screen has no turn.
		handoff.StatusIdle: conformance.Join(ls("", "  Select session", "", "  Today", "  Handoff session   10:30 PM", "", "  ↑↓ select  enter confirm", "")),
	},
	NoPrompt: conformance.Join(ls("", footer(true)), chrome(folder)),
	Paint:    paint,
	Filler:   "     a line of a very long answer whose prompt scrolled out",
	Real:     realDir,
}

// TestBench runs conformance.Bench.Test on these captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on these captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
