package diagram_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/diagram"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// The committed diagram is the output of `handoff-fsm diagram` for the
// current table: change the table and this fails until it is regenerated.
func TestDocsDiagramMatchesTheTable(t *testing.T) {
	got, err := os.ReadFile("../docs/state-diagram.md")
	if err != nil {
		t.Fatalf("read docs/state-diagram.md: %v\nregenerate it with: %s", err, diagram.RegenerateCommand)
	}
	if want := diagram.Mermaid(handoff.Transitions()); string(got) != want {
		t.Fatalf("docs/state-diagram.md has drifted from the transition table in states.go;\n"+
			"regenerate it with: %s\n\nwant:\n%s", diagram.RegenerateCommand, want)
	}
}

func TestMermaidHasEveryTransitionLabelledAndTheLegend(t *testing.T) {
	md := diagram.Mermaid(handoff.Transitions())
	if !strings.Contains(md, "```mermaid\nstateDiagram-v2\n    [*] --> AwaitingStart\n") {
		t.Errorf("no stateDiagram-v2 starting in AwaitingStart:\n%s", md)
	}
	for _, tr := range handoff.Transitions() {
		for _, from := range tr.From {
			if edge := fmt.Sprintf("    %s --> %s : %s\n", from, tr.To, tr.Event); !strings.Contains(md, edge) {
				t.Errorf("missing edge %q", edge)
			}
		}
		if row := fmt.Sprintf("| `%s` | %s |", tr.Event, tr.Event.Describe()); !strings.Contains(md, row) {
			t.Errorf("missing legend row %q", row)
		}
	}
	for _, s := range handoff.States() {
		if row := fmt.Sprintf("| `%s` | %s |", s, s.Describe()); !strings.Contains(md, row) {
			t.Errorf("missing legend row %q", row)
		}
		if s.Final() != strings.Contains(md, fmt.Sprintf("    %s --> [*]\n", s)) {
			t.Errorf("state %s: final marker wrong", s)
		}
	}
}

// A change to the table shows in the drawing (the drift test depends on it).
func TestDiagramFollowsTheTableItIsGiven(t *testing.T) {
	table := append(handoff.Transitions(), handoff.Transition{Event: "retry", From: []handoff.State{handoff.Failed}, To: "Retrying"})
	md := diagram.Mermaid(table)
	if !strings.Contains(md, "    Failed --> Retrying : retry\n") || !strings.Contains(md, "| `Retrying` | unknown state |") {
		t.Errorf("new row not drawn:\n%s", md)
	}
	if md == diagram.Mermaid(handoff.Transitions()) {
		t.Error("diagram ignores the table")
	}
}

func TestDOTHasEveryTransition(t *testing.T) {
	dot := diagram.DOT(handoff.Transitions())
	if !strings.HasPrefix(dot, "// ") || !strings.Contains(dot, "digraph dispatch {") || !strings.HasSuffix(dot, "}\n") {
		t.Errorf("not a digraph:\n%s", dot)
	}
	edges := 0
	for _, tr := range handoff.Transitions() {
		for _, from := range tr.From {
			edges++
			if e := fmt.Sprintf("    %s -> %s [label=\"%s\"", from, tr.To, tr.Event); !strings.Contains(dot, e) {
				t.Errorf("missing edge %q", e)
			}
		}
	}
	if got := strings.Count(dot, " -> ") - 1; got != edges { // minus start -> AwaitingStart
		t.Errorf("%d edges, want %d", got, edges)
	}
	if !strings.Contains(dot, "Done [tooltip=") || !strings.Contains(dot, "peripheries=2") {
		t.Errorf("final states not marked:\n%s", dot)
	}
}

func TestMermaidListsEveryEndingWithItsExitStatus(t *testing.T) {
	md := diagram.Mermaid(handoff.Transitions())
	for _, o := range handoff.Outcomes() {
		found := false
		for _, line := range strings.Split(md, "\n") {
			found = found || strings.Contains(line, fmt.Sprintf("| `%s` |", o.Name)) && strings.Contains(line, fmt.Sprintf("| %d | %s |", o.Exit, o.Summary))
		}
		if !found {
			t.Errorf("the endings table lacks %s (exit %d)", o.Name, o.Exit)
		}
	}
}

func TestMermaidListsEveryActionOfTheCore(t *testing.T) {
	md := diagram.Mermaid(handoff.Transitions())
	for _, a := range fsm.Actions() {
		if !strings.Contains(md, fmt.Sprintf("| `%s` |", a)) || a.Describe() == "unknown action" {
			t.Errorf("action %s is not in the diagram's legend", a)
		}
	}
}
