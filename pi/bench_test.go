package pi

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line in escapes like those pi 0.73.1 emits (as captured
// with capture-pane -e).
func paint(line string) string {
	return "\x1b[38;2;128;128;128m" + line + "\x1b[39m" + strings.Repeat(" ", 10)
}

var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      "π - work",
	History: strings.Split(strings.TrimSuffix(cat(block(" Please look at the parser and tell me what it does with trailing commas"),
		block(" $ grep -n comma parser.go", "", " 12: // trailing commas", "", " Took 0.1s"),
		block(" The parser accepts trailing commas in lists and objects. Working... is", " not shown; Error: none.")), "\n"), "\n"),
	Tail: func(state handoff.Status) []string {
		var s string
		switch state {
		case handoff.StatusCompleted:
			s = cat(block(" Summarise what you changed"), []string{" I changed three things:", "", " 1. the lexer keeps positions"}, chrome(false, ""))
		case handoff.StatusProcessing:
			s = cat(block(" Summarise what you changed"), chrome(true, ""))
		case handoff.StatusIdle:
			s = cat(block(header...), chrome(false, ""))
		}
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	},
	NoPrompt: strings.Split(strings.TrimSuffix(cat(chrome(false, "")), "\n"), "\n"),
	Paint:    paint,
}

func TestBenchCapturesClassifyAsNamed(t *testing.T) { bench.CheckCaptures(t) }

// BenchmarkClassify: captures of 25 to 20,000 lines; the cost must stay
// flat as the scrollback grows.
func BenchmarkClassify(b *testing.B) { bench.Classify(b) }

// BenchmarkClassifyNoPrompt: a message taller than the capture, no block
// boundary in it.
func BenchmarkClassifyNoPrompt(b *testing.B) {
	bench.ClassifyNoPrompt(b, " a line of a very long answer whose prompt scrolled out")
}

func BenchmarkExtractLastMessage(b *testing.B) { bench.LastMessage(b) }

// BenchmarkClassifyReal classifies the real pi screens.
func BenchmarkClassifyReal(b *testing.B) { conformance.ClassifyReal(b, realDir, Provider()) }

// TestClassifyCPUTime reports the CPU time per Classify call (set
// HANDOFF_CPUTIME=1).
func TestClassifyCPUTime(t *testing.T) { bench.CPUTime(t) }
