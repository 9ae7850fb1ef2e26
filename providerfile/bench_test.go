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
		Tails: map[handoff.Status][]string{
			handoff.StatusCompleted:  {"› the last prompt", "", "• The answer.", "", "  Worked for 2s • 05:01", "", "› Ask Codex to do anything", "", "  sim-model medium · /tmp/work", "  ← for agents · ? for shortcuts"},
			handoff.StatusProcessing: {"› the last prompt", "", "◦ Working (3s • esc to interrupt)", "", "› Ask Codex to do anything", "", "  sim-model medium · /tmp/work", "  tab to queue message"},
			handoff.StatusIdle:       {"› the last prompt", "", "› Ask Codex to do anything", "", "  sim-model medium · /tmp/work", "  ← for agents · ? for shortcuts"},
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
