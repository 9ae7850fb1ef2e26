package kimi

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// bench is the shared scene as Kimi Code 2.1.0 draws it; Paint adds the
// escapes it emits (as captured with capture-pane -e).
var bench = conformance.Scene{
	Classifier: Provider(),
	Title:      "Look at the parser",
	Prompt:     promptCell,
	Tool:       tool,
	Reply:      reply,
	Chrome:     func(busy bool) []string { return chrome(busy, "") },
	Welcome:    welcome,
	BusyWord:   "Working…",
	Indent:     "   ",
	Paint:      func(line string) string { return "\x1b[38;2;224;224;224m" + line + "\x1b[39m" },
	Real:       realDir,
}.Bench()

// TestBench runs conformance.Bench.Test on Kimi Code's captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on Kimi Code's captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
