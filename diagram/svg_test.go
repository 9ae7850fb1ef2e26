package diagram

import (
	"encoding/xml"
	"io"
	"strings"
	"sync"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// The SVG is well-formed, has a box per state and an arrow per pair of
// states the table joins, labelled with every event of the table.
func TestSVGDrawsEveryRowOfTheTable(t *testing.T) {
	table := handoff.Transitions()
	svg := thePicture().SVG(nil)
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
	}
	for _, s := range handoff.States() {
		if !strings.Contains(svg, `id="state-`+string(s)+`"`) {
			t.Errorf("no box for %s", s)
		}
	}
	for _, tr := range table {
		for _, f := range tr.From {
			if !strings.Contains(svg, string(f)+`>`+string(tr.To)) {
				t.Errorf("no arrow %s → %s", f, tr.To)
			}
		}
		if !strings.Contains(svg, `data-event="`+string(tr.Event)+`"`) {
			t.Errorf("no label %s", tr.Event)
		}
	}
	if strings.Contains(svg, "taken") && strings.Contains(svg, `class="edge taken"`) {
		t.Error("an arrow is highlighted with no steps")
	}
}

// A dispatch's path is highlighted: its arrows, its events with their step
// numbers, the states it went through and the one it ended in; a step the
// table does not have is shown, not dropped.
func TestSVGHighlightsThePathTaken(t *testing.T) {
	path := []Step{
		{handoff.AwaitingStart, handoff.Working, handoff.EventActive},
		{handoff.Working, handoff.IdleGrace, handoff.EventQuiet},
		{handoff.IdleGrace, handoff.Working, handoff.EventActive},
		{handoff.Working, handoff.IdleGrace, handoff.EventQuiet},
		{handoff.IdleGrace, handoff.Done, handoff.EventFileReady},
	}
	svg := thePicture().SVG(path)
	for _, want := range []string{
		`<g class="edge taken" id="edge-AwaitingStart-Working"`,
		`<g class="edge taken" id="edge-Working-IdleGrace"`,
		`<g class="edge taken" id="edge-any-Done"`,
		`class="taken" data-event="quiet">quiet (2,4)</tspan>`,
		`class="taken" data-event="file_ready">file_ready (5)</tspan>`,
		`<g class="node visited" id="state-Working">`,
		`<g class="node final visited current" id="state-Done">`,
		`<g class="node final" id="state-Failed">`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(svg, `<g class="edge taken" id="edge-Working-Failed"`) {
		t.Error("an arrow not taken is highlighted")
	}
	odd := thePicture().SVG([]Step{{handoff.Done, handoff.Working, handoff.EventActive}})
	if !strings.Contains(odd, "not in the table: 1. Done → Working on active") {
		t.Errorf("a step outside the table is not shown:\n%s", odd)
	}
}

// thePicture is the table laid out once for every test (the layout is
// searched for: a moment's work, slow under -race).
var thePicture = sync.OnceValue(func() *Picture { return NewPicture(handoff.Transitions()) })
