package qwen

import (
	"path/filepath"
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
	Tail: func(state handoff.Status) []string {
		switch state {
		case handoff.StatusCompleted:
			return strings.Split(strings.TrimSuffix(cat(promptLines("Summarise what you changed"), ls("  ◆︎ I changed three things:", "",
				"    1. the lexer keeps positions", "    2. the parser reports the line of an error", ""), chrome("", placeholder)), "\n"), "\n")
		case handoff.StatusProcessing:
			return strings.Split(strings.TrimSuffix(cat(promptLines("Summarise what you changed"), ls("  ◆︎ I changed three things:", ""),
				chrome(busy, placeholder)), "\n"), "\n")
		case handoff.StatusIdle:
			return strings.Split(strings.TrimSuffix(cat(promptLines("Summarise what you changed"), ls("  ●︎ Request cancelled.", ""),
				chrome("", placeholder)), "\n"), "\n")
		}
		return nil
	},
	NoPrompt: strings.Split(strings.TrimSuffix(cat(chrome("", placeholder)), "\n"), "\n"),
	Paint:    paint,
}

func TestBenchCapturesClassifyAsNamed(t *testing.T) { bench.CheckCaptures(t) }

// BenchmarkClassify: captures of 25 to 20,000 lines; the cost must stay
// flat as the scrollback grows.
func BenchmarkClassify(b *testing.B) { bench.Classify(b) }

// BenchmarkClassifyNoPrompt is the worst case: the whole capture is read.
func BenchmarkClassifyNoPrompt(b *testing.B) {
	bench.ClassifyNoPrompt(b, "    a line of a very long answer whose prompt scrolled out")
}

func BenchmarkExtractLastMessage(b *testing.B) { bench.LastMessage(b) }

// BenchmarkClassifyReal classifies the real Qwen Code screens, of every
// terminal.
func BenchmarkClassifyReal(b *testing.B) {
	for _, dir := range conformance.Dirs(realDir) {
		b.Run(filepath.Base(dir), func(b *testing.B) { conformance.ClassifyReal(b, dir, Provider()) })
	}
}

// TestClassifyCPUTime reports the CPU time per Classify call (set
// HANDOFF_CPUTIME=1).
func TestClassifyCPUTime(t *testing.T) { bench.CPUTime(t) }
