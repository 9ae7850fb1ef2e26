package cline

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in escapes like those Cline 3.0.65 emits (as captured
// with capture-pane -e).
func paint(line string) string {
	return "\x1b[38;2;121;184;255m" + line + "\x1b[38;2;255;255;255m" + strings.Repeat(" ", 10)
}

var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      "> Summarise what you changed",
	History: []string{" ❯ Please look at the parser and tell me what it does with trailing commas",
		" * run_commands(grep -n comma parser.go)", "   ⎿ 12: // trailing commas",
		" * The parser accepts trailing commas in lists and objects. Thinking... is", "   not shown; Error: none."},
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted:  conformance.Join([]string{" ❯ Summarise what you changed", " * I changed three things:", "", "   1. the lexer keeps positions"}, chrome("")),
		handoff.StatusProcessing: conformance.Join([]string{" ❯ Summarise what you changed"}, busy()),
		handoff.StatusIdle:       conformance.Join([]string{" ❯ Summarise what you changed"}, chrome("")),
	},
	NoPrompt: chrome(""),
	Paint:    paint,
	Filler:   "   a line of a very long answer whose prompt scrolled out",
	Real:     realDir,
}

// TestBench runs conformance.Bench.Test on these captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on these captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
