package kimi

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in escapes like those Kimi Code 2.1.0 emits (as
// captured with capture-pane -e).
func paint(line string) string {
	return "\x1b[38;2;224;224;224m" + line + "\x1b[39m"
}

var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      "Look at the parser",
	History: conformance.Join(promptCell("Please look at the parser and tell me what it does with trailing commas"),
		tool("grep -n comma parser.go", "12: // trailing commas"),
		reply("The parser accepts trailing commas in lists and objects. Working… is", "not shown; Error: none.")),
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted:  conformance.Join(promptCell("Summarise what you changed"), reply("I changed three things:", "1. the lexer keeps positions"), chrome(false, "")),
		handoff.StatusProcessing: conformance.Join(promptCell("Summarise what you changed"), chrome(true, "")),
		handoff.StatusIdle:       conformance.Join(welcome, chrome(false, "")),
	},
	NoPrompt: conformance.Join(chrome(false, "")),
	Paint:    paint,
	Filler:   "   a line of a very long answer whose prompt scrolled out",
	Real:     realDir,
}

// TestBench: the benchmarks' captures classify as the state they are
// built in; HANDOFF_CPUTIME=1 adds the CPU time per call (TestBench/CPUTime).
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify: captures of 25 to 20,000 lines, idle, completed and
// processing, plain and coloured (the cost must stay flat as the
// scrollback grows), the worst case (no prompt), the last message, and
// the real screens (internal/conformance's Bench.Run).
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
