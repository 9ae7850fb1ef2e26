package kimi

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// bench is the shared scene as Kimi Code 2.1.0 draws it, in the colours
// it emits (capture-pane -e).
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
	Paint:      conformance.TrueColour(224, 224, 224, 0),
	Real:       realDir,
}.Bench()

// TestBench runs conformance.Bench.Test on Kimi Code's captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on Kimi Code's captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
