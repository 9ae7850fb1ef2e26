package copilot

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in escapes like those Copilot CLI 1.0.102 emits (as
// captured with capture-pane -e).
func paint(line string) string {
	if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "●") {
		return "\x1b[39m \x1b[34m●\x1b[39m" + t[len("●"):] + strings.Repeat(" ", 20) + "\x1b[37m┃"
	}
	return "\x1b[39m" + line + "\x1b[0m" + strings.Repeat(" ", 10)
}

var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      named,
	History: []string{
		" ❯ Please look at the parser and tell me what it does with trailing commas    14:03",
		"",
		" $ Shell Read the parser",
		"   cat parser.go",
		"",
		" ● The parser accepts trailing commas in lists and objects. It is running fine",
		"   and nothing is executing in the background; Working is not shown.",
		"",
		"   - lists: accepted",
		"   - ✗ 400 none",
		"",
	},
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted: conformance.Join(promptLines("Summarise what you changed"), ls(" ● I changed three things:", "",
			"   1. the lexer keeps positions", "   2. the parser reports the line of an error", ""), chrome(idleFooter, "❯")),
		handoff.StatusProcessing: conformance.Join(promptLines("Summarise what you changed"), ls(" ● I changed three things:", ""),
			chrome(busy, "❯")),
		handoff.StatusIdle: conformance.Join(promptLines("Summarise what you changed"), ls(""), chrome(idleFooter, "❯")),
	},
	NoPrompt: conformance.Join(chrome(idleFooter, "❯")),
	Paint:    paint,
	Filler:   "   a line of a very long answer whose prompt scrolled out",
	Real:     realDir,
}

// TestBench runs conformance.Bench.Test on these captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on these captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
