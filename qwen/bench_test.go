package qwen

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in escapes like those Qwen Code 0.24.4 emits (as
// captured with capture-pane -e).
func paint(line string) string {
	if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "◆") || strings.HasPrefix(t, "> ") {
		return "  \x1b[38;2;203;166;247m" + t[:len("◆︎")] + "\x1b[39m" + t[len("◆︎"):] + strings.Repeat(" ", 20)
	}
	return "\x1b[39m" + line + "\x1b[0m" + strings.Repeat(" ", 10)
}

var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      ready,
	History: []string{
		"  > Please look at the parser and tell me what it does with trailing commas",
		"",
		"  ✓ ReadFile parser.go",
		"",
		"  ◆︎ The parser accepts trailing commas in lists and objects. It is running fine",
		"    and nothing is executing in the background; esc to cancel is not shown.",
		"",
		"    - lists: accepted",
		"    - ✕ [API Error: none]",
		"",
	},
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted: conformance.Join(promptLines("Summarise what you changed"), ls("  ◆︎ I changed three things:", "",
			"    1. the lexer keeps positions", "    2. the parser reports the line of an error", ""), chrome("", placeholder)),
		handoff.StatusProcessing: conformance.Join(promptLines("Summarise what you changed"), ls("  ◆︎ I changed three things:", ""),
			chrome(busy, placeholder)),
		handoff.StatusIdle: conformance.Join(promptLines("Summarise what you changed"), ls("  ●︎ Request cancelled.", ""),
			chrome("", placeholder)),
	},
	NoPrompt: conformance.Join(chrome("", placeholder)),
	Paint:    paint,
	Filler:   "    a line of a very long answer whose prompt scrolled out",
	Real:     realDir,
}

// TestBench runs conformance.Bench.Test on these captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on these captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
