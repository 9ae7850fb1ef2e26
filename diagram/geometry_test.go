package diagram

import (
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// drawn is what the SVG itself says of its geometry: the states' boxes,
// each arrow's curve (sampled) and its label's box.
type drawn struct {
	states map[string]box
	edges  map[string]curve
	labels map[string]box
}

func readSVG(t *testing.T, svg string) drawn {
	t.Helper()
	// encoding/xml maps one attribute per field: read width and height by hand.
	dec := xml.NewDecoder(strings.NewReader(svg))
	out := drawn{states: map[string]box{}, edges: map[string]curve{}, labels: map[string]box{}}
	var group string
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range se.Attr {
			attr[a.Name.Local] = a.Value
		}
		num := func(k string) float64 {
			var f float64
			fmt.Sscan(attr[k], &f)
			return f
		}
		switch se.Name.Local {
		case "g":
			group = attr["id"]
		case "rect":
			b := box{num("x"), num("y"), num("width"), num("height")}
			switch {
			case strings.HasPrefix(group, "state-"):
				out.states[strings.TrimPrefix(group, "state-")] = b
			case attr["class"] == "label-box":
				out.labels[group] = b
			}
		case "path":
			if strings.HasPrefix(group, "edge-") {
				var c curve
				if _, err := fmt.Sscanf(attr["d"], "M%f,%f Q%f,%f %f,%f", &c.x0, &c.y0, &c.cx, &c.cy, &c.x1, &c.y1); err != nil {
					t.Fatalf("%s: path %q: %v", group, attr["d"], err)
				}
				out.edges[group] = c
			}
		}
	}
	return out
}

// The diagram reads at a glance, by its own geometry: no label overlaps
// another label or any arrow (its own included: none strikes its label
// through), no label sits on a state, and no arrow runs through a state
// it does not join — with and without a path drawn on it.
func TestTheDiagramHasNoOverlaps(t *testing.T) {
	for name, path := range map[string][]Step{
		"no path": nil,
		"a path": {
			{handoff.AwaitingStart, handoff.Working, handoff.EventActive},
			{handoff.Working, handoff.IdleGrace, handoff.EventQuiet},
			{handoff.IdleGrace, handoff.Working, handoff.EventActive},
			{handoff.Working, handoff.IdleGrace, handoff.EventQuiet},
			{handoff.IdleGrace, handoff.Done, handoff.EventFileReady},
		},
	} {
		d := readSVG(t, thePicture().SVG(path))
		if len(d.states) != len(handoff.States()) || len(d.edges) == 0 || len(d.labels) != len(d.edges) {
			t.Fatalf("%s: read %d states, %d arrows, %d labels", name, len(d.states), len(d.edges), len(d.labels))
		}
		for id, l := range d.labels {
			for id2, l2 := range d.labels {
				if id < id2 && l.overlaps(l2) {
					t.Errorf("%s: the labels of %s and %s overlap", name, id, id2)
				}
			}
			for s, b := range d.states {
				if l.overlaps(b) {
					t.Errorf("%s: the label of %s lies on state %s", name, id, s)
				}
			}
			for e, c := range d.edges {
				for _, p := range c.sample() {
					if l.contains(p[0], p[1]) {
						t.Errorf("%s: the label of %s lies on the arrow %s", name, id, e)
						break
					}
				}
			}
		}
		for e, c := range d.edges {
			joins := strings.Split(strings.TrimPrefix(e, "edge-"), "-")
			for s, b := range d.states {
				if joins[0] == s || joins[1] == s {
					continue
				}
				for _, p := range c.sample() {
					if b.contains(p[0], p[1]) {
						t.Errorf("%s: the arrow %s runs through state %s", name, e, s)
						break
					}
				}
			}
		}
	}
}
