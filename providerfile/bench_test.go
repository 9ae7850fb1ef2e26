package providerfile

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// simBench builds simulated-agent captures of any length for the
// conformance benchmarks.
func simBench(tb testing.TB) conformance.Bench {
	return conformance.Bench{
		Classifier: load(tb, "testdata/simagent.toml"),
		Title:      "work",
		History:    []string{"› an earlier prompt", "", "• Ran ls", "  └ a b c", "", "• An earlier answer,", "  on two lines.", "", "  Worked for 3s • 05:00", ""},
		Tail: func(state handoff.Status) []string {
			tail := []string{"› the last prompt", ""}
			switch state {
			case handoff.StatusCompleted:
				tail = append(tail, "• The answer.", "", "  Worked for 2s • 05:01", "")
			case handoff.StatusProcessing:
				tail = append(tail, "◦ Working (3s • esc to interrupt)", "")
			}
			footer := "  ← for agents · ? for shortcuts"
			if state == handoff.StatusProcessing {
				footer = "  tab to queue message"
			}
			return append(tail, "› Ask Codex to do anything", "", "  sim-model medium · /tmp/work", footer)
		},
		NoPrompt: []string{"• streaming text with no prompt below"},
		Paint:    func(l string) string { return "\x1b[2m" + l + "\x1b[0m" },
	}
}

func TestBenchCapturesReadAsBuilt(t *testing.T) { simBench(t).CheckCaptures(t) }

func BenchmarkClassify(b *testing.B) { simBench(b).Classify(b) }
func BenchmarkClassifyNoPrompt(b *testing.B) {
	simBench(b).ClassifyNoPrompt(b, "  some scrollback text")
}
func BenchmarkLastMessage(b *testing.B) { simBench(b).LastMessage(b) }
