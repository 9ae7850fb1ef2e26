package pi

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// bench is the shared scene as pi 0.73.1 draws it: every message a block
// one column in, in the colours it emits (capture-pane -e).
var bench = conformance.Scene{
	Classifier: Provider(),
	Title:      "π - work",
	Prompt:     func(text string) []string { return block(" " + text) },
	Tool: func(cmd, output string) []string {
		return block(" $ "+cmd, "", " "+output, "", " Took 0.1s")
	},
	Reply: func(lines ...string) []string {
		var out []string
		for i, l := range lines {
			if i > 0 {
				out = append(out, "")
			}
			out = append(out, " "+l)
		}
		return block(out...)
	},
	Chrome:   func(busy bool) []string { return chrome(busy, "") },
	Welcome:  block(header...),
	BusyWord: "Working...",
	Indent:   " ",
	Paint:    conformance.TrueColour(128, 128, 128, 10),
	Real:     realDir,
}.Bench()

// TestBench runs conformance.Bench.Test on pi's captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on pi's captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }
