package claude

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in the escapes Claude Code 2.1.330 emits (as captured
// with capture-pane -e): 256-colour glyphs and text, resets, padding.
func paint(line string) string {
	switch {
	case strings.HasPrefix(line, "● "):
		return "\x1b[38;5;231m\x1b[49m●\x1b[39m " + line[len("● "):] + "\x1b[39m" + strings.Repeat(" ", 20)
	case strings.HasPrefix(line, "✻ ") || strings.HasPrefix(line, "✶ "):
		return "\x1b[38;5;174m" + line[:3] + "\x1b[39m \x1b[38;5;174m" + line[4:] + "\x1b[39m"
	case strings.HasPrefix(line, "───"):
		return "\x1b[38;5;244m" + line + "\x1b[39m"
	case strings.HasPrefix(line, "❯ "):
		return "\x1b[48;5;237m❯ \x1b[38;5;231m" + line[len("❯ "):] + "\x1b[39m" + strings.Repeat(" ", 20)
	case strings.HasPrefix(line, "❯\u00a0"):
		return "\x1b[38;5;246m❯\u00a0\x1b[7m \x1b[0m\x1b[39m\x1b[49m" + strings.Repeat(" ", 20)
	}
	return "\x1b[39m  \x1b[38;5;246m" + strings.TrimLeft(line, " ") + "\x1b[39m" + strings.Repeat(" ", 10)
}

// bench is the synthetic Claude Code captures the classifier is measured
// on (internal/conformance builds them).
var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      "✳ Claude Code",
	History: []string{
		"❯ Please look at the parser and tell me what it does with trailing commas",
		"",
		"● I'll read the parser first.",
		"",
		"  Read 2 files (ctrl+o to expand)",
		"",
		"● The parser accepts trailing commas in lists and objects. It is running fine",
		"  and nothing is executing in the background; esc to interrupt is not shown.",
		"",
		"  - lists: accepted",
		"  - objects: accepted",
		"  - API Error: none",
		"",
		"✻ Brewed for 12s · done 9:04 AM",
		"",
		"",
	},
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted: {
			"❯ Summarise what you changed",
			"",
			"● I changed three things:",
			"",
			"  1. the lexer keeps positions",
			"  2. the parser reports the line of an error",
			"  3. the tests cover both",
			"",
			"✻ Churned for 31s · done 9:05 AM",
			"",
			rule, "❯\u00a0", rule,
			"  ⏵⏵ bypass permissions on (shift+tab to cycle)",
		},
		handoff.StatusProcessing: {
			"❯ Summarise what you changed",
			"",
			"● I changed three things:",
			"",
			"  1. the lexer keeps positions",
			"",
			"✽ Orbiting… (12s · ↓ 210 tokens)",
			"  ⎿ \u00a0Tip: Use /memory to view and manage Claude memory",
			"",
			rule, "❯\u00a0", rule,
			"  ⏵⏵ bypass permissions on (shift+tab to cycle) · esc to interrupt",
		},
		handoff.StatusIdle: {
			"❯ Summarise what you changed",
			"",
			rule, "❯\u00a0", rule,
			"  ⏵⏵ bypass permissions on (shift+tab to cycle)",
		},
	},
	NoPrompt: []string{rule, "❯\u00a0", rule, "  ⏵⏵ bypass permissions on"},
	Paint:    paint,
	Filler:   "  a line of a very long answer whose prompt scrolled out",
	Real:     realDir,
}

// TestBench runs conformance.Bench.Test on these captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on these captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
