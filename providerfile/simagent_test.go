package providerfile

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
)

func load(t testing.TB, path string) *Classifier {
	t.Helper()
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type simScreen struct {
	name    string
	capture string
	title   string
}

// simScreens renders every phase of a turn of the simulated agent (the
// phases internal/simagent's codex test reads), for several prompts,
// replies and terminal sizes.
func simScreens() []simScreen {
	now := time.Now()
	var out []simScreen
	prompts := []string{
		"Say hello",
		handoff.WithInstruction("Summarise the repo", "/tmp/work dir/.tmp/agent-responses/analyst_summary.md", "rcpt-123"),
		"line one\n  • an indented bullet in the prompt\nline three",
	}
	replies := []string{"Hello! Ready for the next task.", "Done. I wrote my answer (120 bytes) to the response file.",
		"First line of a long answer that goes on and on and on and on and on and on and on and on and wraps on a narrow screen"}
	for pi, prompt := range prompts {
		for ri, reply := range replies {
			for _, size := range [][2]int{{40, 100}, {24, 60}, {12, 40}} {
				rows, cols := size[0], size[1]
				add := func(phase string, s simagent.Screen) {
					out = append(out, simScreen{fmt.Sprintf("p%d/r%d/%dx%d/%s", pi, ri, rows, cols, phase),
						strings.Join(s.Render(now, rows, cols), "\n") + "\n", s.Title(now)})
				}
				fresh := simagent.Screen{Model: "sim-model", Effort: "medium", Cwd: "/tmp/work dir",
					Transcript: []string{">_ Simulated Codex (handoff-fsm sim-agent, scenario normal)", "", "  model:     sim-model medium", "  directory: /tmp/work dir"}}
				add("fresh", fresh)
				prev := fresh
				prev.Transcript = append(append([]string(nil), fresh.Transcript...), "", "› Say hello", "", "• Hello!", "", "  Worked for 1s • 05:00")
				add("previous-turn", prev)
				draft := prev
				draft.Draft = prompt
				add("draft", draft)
				big := prev
				big.Draft = strings.Repeat("x", 1200)
				add("large-paste", big)
				working := prev
				working.Transcript = append(append([]string(nil), prev.Transcript...), "")
				for i, l := range strings.Split(prompt, "\n") {
					if i == 0 {
						working.Transcript = append(working.Transcript, "› "+l)
					} else {
						working.Transcript = append(working.Transcript, "  "+l)
					}
				}
				working.Busy, working.Indicator, working.Since = true, "Working", now.Add(-2*time.Second)
				add("working", working)
				asking := working
				asking.Indicator = ""
				asking.Menu = simagent.ApprovalMenu("cat > /tmp/x <<'EOF'")
				add("asking", asking)
				streaming := working
				streaming.Indicator = ""
				streaming.Transcript = append(append([]string(nil), working.Transcript...), "", "• Ran cat > /tmp/x", "  └ (no output)", "", "• "+reply)
				add("streaming", streaming)
				done := streaming
				done.Busy = false
				done.Transcript = append(append([]string(nil), streaming.Transcript...), "", "  Worked for 4s • 05:01")
				add("done", done)
				toolOnly := working
				toolOnly.Busy, toolOnly.Indicator = false, ""
				toolOnly.Transcript = append(append([]string(nil), working.Transcript...), "", "• Ran ls", "  └ a b", "", "  Worked for 2s • 05:01")
				add("tool-only", toolOnly)
			}
		}
	}
	return out
}

// The proof: the file that describes the simulated agent reads every screen
// of it as the Go rules of codex/ do, status and last message alike.
func TestSimagentFileReadsLikeTheCodexRules(t *testing.T) {
	want := codex.Provider()
	for _, path := range []string{"testdata/simagent.toml", "testdata/simagent.yaml"} {
		c := load(t, path)
		statuses := map[handoff.Status]int{}
		for _, sc := range simScreens() {
			w, g := want.Classify(sc.capture, sc.title), c.Classify(sc.capture, sc.title)
			statuses[g.Status]++
			if w.Status != g.Status {
				t.Errorf("%s %s: file says %s (%s), codex says %s (%s)\n%s", path, sc.name, g.Status, g.Reason, w.Status, w.Reason, sc.capture)
			}
			wm, werr := want.LastMessage(sc.capture)
			gm, gerr := c.LastMessage(sc.capture)
			if wm != gm || (werr == nil) != (gerr == nil) {
				t.Errorf("%s %s: last message %q (%v), codex %q (%v)", path, sc.name, gm, gerr, wm, werr)
			}
			conformance.CheckClassification(t, c, sc.capture, sc.title, ErrNoMessage)
		}
		for _, s := range []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing, handoff.StatusWaitingUserAnswer} {
			if statuses[s] == 0 {
				t.Errorf("%s: no screen read as %s", path, s)
			}
		}
	}
}

func TestErrorLineAfterTheLastPrompt(t *testing.T) {
	c := load(t, "testdata/simagent.toml")
	capture := "› do it\n\n■ stream error: 503 Service Unavailable\n\n› Ask Codex to do anything\n\n  sim-model medium · /tmp\n  ← for agents · ? for shortcuts\n"
	got := c.Classify(capture, "tmp")
	if got.Status != handoff.StatusError || got.Detail != "■ stream error: 503 Service Unavailable" {
		t.Fatalf("got %s (%s) detail %q", got.Status, got.Reason, got.Detail)
	}
	if w := codex.Provider().Classify(capture, "tmp"); w.Status != got.Status {
		t.Fatalf("codex says %s", w.Status)
	}
	if got := c.Classify("\n\n", ""); got.Status != handoff.StatusError {
		t.Fatalf("empty capture: %s", got.Status)
	}
	if _, err := c.LastMessage(capture); !errors.Is(err, ErrNoMessage) {
		t.Fatalf("last message of an error turn: %v", err)
	}
}

// Scrollback above the last user prompt changes nothing, and is not read.
func TestReadsOnlyToTheLastPrompt(t *testing.T) {
	c := load(t, "testdata/simagent.toml")
	old := strings.Repeat("› old prompt\n\n• old answer\n\n  Worked for 1s\n\n", 500)
	for _, sc := range simScreens() {
		got := c.Classify(sc.capture, sc.title)
		conformance.CheckReadsToTheLastPrompt(t, c, sc.capture, sc.title, old, got, func(cl handoff.Classification) (int, int) {
			s := cl.Signals.(Signals)
			return s.LinesScanned, s.LastUserLine
		})
	}
}

func FuzzClassify(f *testing.F) {
	for _, sc := range simScreens()[:20] {
		f.Add(sc.capture, sc.title)
	}
	c := load(f, "testdata/simagent.toml")
	f.Fuzz(func(t *testing.T, capture, title string) {
		conformance.CheckClassification(t, c, capture, title, ErrNoMessage)
	})
}
