package gemini

import (
	"path/filepath"
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
	Tail: func(state handoff.Status) []string {
		switch state {
		case handoff.StatusCompleted:
			return cat2(prompt("Summarise what you changed"), ls("", "✦ I changed three things:", "", "  1. the lexer keeps positions",
				"  2. the parser reports the line of an error", "  3. the tests cover both", ""), chrome(idleStatus, placeholder))
		case handoff.StatusProcessing:
			return cat2(prompt("Summarise what you changed"), ls("", "✦ I changed three things:", "", "  1. the lexer keeps positions", ""),
				chrome(busyStatus, placeholder))
		case handoff.StatusIdle:
			return cat2(prompt("Summarise what you changed"), ls("", "ℹ Request cancelled.", ""), chrome(idleStatus, placeholder))
		}
		return nil
	},
	NoPrompt: chrome(idleStatus, placeholder),
	Paint:    paint,
}

func cat2(parts ...[]string) []string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

func TestBenchCapturesClassifyAsNamed(t *testing.T) { bench.CheckCaptures(t) }

// BenchmarkClassify: captures of 25 to 20,000 lines, idle/completed/
// processing, plain and coloured. The cost follows the lines after the last
// prompt, so it must stay flat as the scrollback grows.
func BenchmarkClassify(b *testing.B) { bench.Classify(b) }

// BenchmarkClassifyNoPrompt is the worst case: no prompt on the screen, so
// the whole capture is read.
func BenchmarkClassifyNoPrompt(b *testing.B) {
	bench.ClassifyNoPrompt(b, "  a line of a very long answer whose prompt scrolled out")
}

func BenchmarkExtractLastMessage(b *testing.B) { bench.LastMessage(b) }

// BenchmarkClassifyReal classifies the real Gemini CLI screens, of every
// terminal.
func BenchmarkClassifyReal(b *testing.B) {
	for _, dir := range conformance.Dirs(realDir) {
		b.Run(filepath.Base(dir), func(b *testing.B) { conformance.ClassifyReal(b, dir, Provider()) })
	}
}

// TestClassifyCPUTime reports the CPU time per Classify call (set
// HANDOFF_CPUTIME=1).
func TestClassifyCPUTime(t *testing.T) { bench.CPUTime(t) }
