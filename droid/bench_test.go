package droid

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// bench is the shared scene as droid 0.225.2 draws it, in the colours it
// emits (capture-pane -e).
var bench = conformance.Scene{
	Classifier: Provider(),
	Title:      "⛬ Look at the parser",
	Prompt:     prompt,
	Tool: func(cmd, output string) []string {
		return []string{"   Execute " + cmd, "    ↳ " + output, ""}
	},
	Reply:    func(lines ...string) []string { return reply(lines[0], lines[1:]...) },
	Chrome:   func(busy bool) []string { return chrome(busy, "") },
	Welcome:  header,
	BusyWord: "Streaming...",
	Indent:   "   ",
	Paint:    conformance.TrueColour(238, 238, 238, 10),
	Real:     realDir,
}.Bench()

// TestBench runs conformance.Bench.Test on droid's captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on droid's captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
