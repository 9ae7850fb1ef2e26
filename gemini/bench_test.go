package gemini

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in escapes like those Gemini CLI 0.61.0 emits (as
// captured with capture-pane -e): truecolor glyphs and text, resets,
// padding.
func paint(line string) string {
	switch {
	case strings.HasPrefix(line, "✦ ") || strings.HasPrefix(line, "✕ "):
		return "\x1b[38;2;203;166;247m" + line[:3] + "\x1b[39m " + line[4:] + "\x1b[39m" + strings.Repeat(" ", 20)
	case strings.HasPrefix(line, "▄") || strings.HasPrefix(line, "▀") || strings.HasPrefix(line, "─"):
		return "\x1b[38;2;30;30;46m" + line + "\x1b[39m"
	case strings.HasPrefix(line, " ⠼ "):
		return " \x1b[38;2;137;180;250m⠼\x1b[39m " + line[5:] + "\x1b[39m"
	}
	return "\x1b[39m" + line + "\x1b[0m" + strings.Repeat(" ", 10)
}

// bench is the synthetic Gemini CLI captures the classifier is measured
// on (internal/conformance builds them).
var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      ready,
	History: []string{
		upper, " > Please look at the parser and tell me what it does with trailing commas", lower,
		"",
		"╭──────────────────────────────────────────────╮",
		"│ ✓  ReadFile parser.go                        │",
		"╰──────────────────────────────────────────────╯",
		"",
		"✦ The parser accepts trailing commas in lists and objects. It is running fine",
		"  and nothing is executing in the background; esc to cancel is not shown.",
		"",
		"  - lists: accepted",
		"  - objects: accepted",
		"  - ✕ [API Error: none]",
		"",
		"",
	},
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted: conformance.Join(prompt("Summarise what you changed"), ls("", "✦ I changed three things:", "", "  1. the lexer keeps positions",
			"  2. the parser reports the line of an error", "  3. the tests cover both", ""), chrome(idleStatus, placeholder)),
		handoff.StatusProcessing: conformance.Join(prompt("Summarise what you changed"), ls("", "✦ I changed three things:", "", "  1. the lexer keeps positions", ""),
			chrome(busyStatus, placeholder)),
		handoff.StatusIdle: conformance.Join(prompt("Summarise what you changed"), ls("", "ℹ Request cancelled.", ""), chrome(idleStatus, placeholder)),
	},
	NoPrompt: chrome(idleStatus, placeholder),
	Paint:    paint,
	Filler:   "  a line of a very long answer whose prompt scrolled out",
	Real:     realDir,
}

// TestBench runs conformance.Bench.Test on these captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on these captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
