package diagram

import (
	"fmt"
	"html"
	"slices"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Step is one transition a dispatch took, to be drawn on the diagram.
type Step struct {
	From, To handoff.State
	Event    handoff.Event
}

// SVG draws table as a standalone SVG image. The waiting states sit in a
// frame, in columns from the first state on, the final states after it;
// a row of the table that leaves every waiting state is one arrow from the
// frame, the others an arrow per pair of states carrying every event that
// joins them. The layout is searched for (layout) so that no arrow runs
// through a state it does not join and no label lies on a state, another
// label or an arrow.
//
// The steps a dispatch took (taken, in order) are highlighted: each state
// it went through, each arrow and event it took with its step numbers,
// and its last state; the rest is drawn faint. It is drawn from the same
// table the engine runs, so the board cannot show a path the engine
// cannot take; a step the table does not have is listed under the picture
// rather than dropped.
//
// Every arrow's group carries data-pairs ("From>To …", the table's pairs
// it stands for) and its label's box is a rect.label-box: the geometry a
// test measures.
func SVG(table []handoff.Transition, taken []Step) string {
	return NewPicture(table).SVG(taken)
}

// Picture is table laid out once (the layout is searched for, which takes
// a moment): its SVG with each dispatch's path costs only the drawing.
// Safe for concurrent use.
type Picture struct{ d *drawing }

// NewPicture lays table out.
func NewPicture(table []handoff.Transition) *Picture { return &Picture{layout(table)} }

// SVG draws the picture with the path taken on it (see the package's SVG).
func (p *Picture) SVG(taken []Step) string {
	d := p.d
	order := map[Step][]int{}
	visited := map[handoff.State]bool{}
	var unknown []string
	for i, s := range taken {
		if !slices.ContainsFunc(d.arrows, func(a *arrow) bool {
			return a.to == s.To && slices.Contains(a.froms, s.From) && slices.Contains(a.events, s.Event)
		}) {
			unknown = append(unknown, fmt.Sprintf("%d. %s → %s on %s", i+1, s.From, s.To, s.Event))
			continue
		}
		order[s] = append(order[s], i+1)
		visited[s.From], visited[s.To] = true, true
	}
	var last handoff.State
	if len(taken) > 0 {
		last = taken[len(taken)-1].To
	}
	h := d.h + float64(len(unknown))*16
	var b strings.Builder
	cls := "fsm"
	if len(taken) > 0 {
		cls += " has-path"
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="dispatch state diagram">`+"\n", cls, d.w, h, d.w, h)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#868e96"/></marker>` +
		`<marker id="arrow-taken" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#e8590c"/></marker></defs>` + "\n")
	b.WriteString(`<style>.fsm text{font:13px system-ui,sans-serif;fill:#212529}` +
		`.fsm .frame{fill:#f8f9fa;stroke:#ced4da;stroke-dasharray:5 4}.fsm .frame-title{font:12px system-ui,sans-serif;fill:#868e96}` +
		`.fsm .edge path{fill:none;stroke:#868e96;stroke-width:1.3}.fsm.has-path .edge:not(.taken){opacity:.45}` +
		`.fsm .edge.taken path{stroke:#e8590c;stroke-width:3}.fsm .label-box{fill:#fff;fill-opacity:.9}` +
		`.fsm .label{font:11px ui-monospace,"DejaVu Sans Mono",monospace;fill:#495057}` +
		`.fsm .label .taken{fill:#d9480f;font-weight:bold}.fsm .node rect{fill:#fff;stroke:#495057;stroke-width:1.3}` +
		`.fsm .node.visited rect{fill:#fff4e6;stroke:#e8590c;stroke-width:2}.fsm .node.current rect{fill:#e8590c;stroke:#d9480f}.fsm .node.current text{fill:#fff;font-weight:600}` +
		`.fsm .node.final rect{stroke-width:2.5}.fsm .node.final.current rect{stroke-width:2.5}</style>` + "\n")
	f := d.frame
	fmt.Fprintf(&b, `<rect class="frame" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="14"/>`+"\n", f.x, f.y, f.w, f.h)
	fmt.Fprintf(&b, `<text class="frame-title" x="%.1f" y="%.1f" dominant-baseline="central" data-box="%.1f %.1f %.1f %.1f">%s</text>`+"\n",
		d.title.x+3, d.title.cy(), d.title.x, d.title.y, d.title.w, d.title.h, html.EscapeString(frameTitle))
	// The start: a dot and an arrow into the first state, from outside the frame.
	if a, ok := d.nodes[handoff.AwaitingStart]; ok {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="6" fill="#343a40"/><path d="M%.1f,%.1f L%.1f,%.1f" stroke="#343a40" stroke-width="1.3" marker-end="url(#arrow)"/>`+"\n",
			f.x-24, a.cy(), f.x-18, a.cy(), a.x-2, a.cy())
	}
	for _, a := range d.arrows {
		drawArrow(&b, a, order)
	}
	for _, s := range d.order {
		n := d.nodes[s]
		class := "node"
		if s.Final() {
			class += " final"
		}
		if visited[s] || (s == handoff.AwaitingStart && len(taken) > 0) {
			class += " visited"
		}
		if s == last {
			class += " current"
		}
		fmt.Fprintf(&b, `<g class="%s" id="state-%s"><title>%s</title><rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" rx="10"/>`+
			`<text x="%.1f" y="%.1f" text-anchor="middle" dominant-baseline="central">%s</text></g>`+"\n",
			class, s, html.EscapeString(s.Describe()), n.x, n.y, n.w, n.h, n.cx(), n.cy(), s)
	}
	for i, u := range unknown {
		fmt.Fprintf(&b, `<text class="unknown" x="10" y="%.0f" fill="#c00">not in the table: %s</text>`+"\n",
			h-float64(len(unknown)-i)*16+8, html.EscapeString(u))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// drawArrow writes a: its path, its label's box and its events, those
// taken with their step numbers.
func drawArrow(b *strings.Builder, a *arrow, order map[Step][]int) {
	var pairs []string
	for _, f := range a.froms {
		pairs = append(pairs, string(f)+">"+string(a.to))
	}
	lines := make([]string, len(a.events))
	taken := make([]bool, len(a.events))
	for i, e := range a.events {
		lines[i] = string(e)
		var nums []string
		for _, f := range a.froms {
			for _, k := range order[Step{f, a.to, e}] {
				nums = append(nums, fmt.Sprint(k))
			}
		}
		if len(nums) > 0 {
			taken[i] = true
			slices.SortFunc(nums, func(x, y string) int { return len(x) - len(y) + strings.Compare(x, y)*boolInt(len(x) == len(y)) })
			lines[i] += " (" + strings.Join(nums, ",") + ")"
		}
	}
	class, marker := "edge", "arrow"
	if slices.Contains(taken, true) {
		class, marker = "edge taken", "arrow-taken"
	}
	from := string(a.from)
	if from == "" {
		from = "any"
	}
	c := a.c
	fmt.Fprintf(b, `<g class="%s" id="edge-%s-%s" data-pairs="%s"><path d="M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" marker-end="url(#%s)"/>`,
		class, from, a.to, strings.Join(pairs, " "), c.x0, c.y0, c.cx, c.cy, c.x1, c.y1, marker)
	l := a.label
	// The box is as wide as the longest line drawn (step numbers included).
	w := 0.0
	for _, s := range lines {
		w = max(w, float64(len(s))*charW)
	}
	fmt.Fprintf(b, `<rect class="label-box" x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="3"/>`, l.cx()-w/2-2, l.y, w+4, l.h)
	fmt.Fprintf(b, `<text class="label" x="%.1f" y="%.1f" text-anchor="middle">`, l.cx(), l.y)
	for i, s := range lines {
		attr := fmt.Sprintf(`x="%.1f" dy="%.1f"`, l.cx(), lineH)
		if i == 0 {
			attr = fmt.Sprintf(`x="%.1f" dy="%.1f"`, l.cx(), lineH-3)
		}
		tc := ""
		if taken[i] {
			tc = ` class="taken"`
		}
		fmt.Fprintf(b, `<tspan %s%s data-event="%s">%s</tspan>`, attr, tc, a.events[i], s)
	}
	b.WriteString("</text></g>\n")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
