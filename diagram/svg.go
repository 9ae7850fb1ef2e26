package diagram

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Step is one transition a dispatch took, to be drawn on the diagram.
type Step struct {
	From, To handoff.State
	Event    handoff.Event
}

// The SVG's geometry, in user units.
const (
	svgNodeW   = 150
	svgNodeH   = 40
	svgColGap  = 360
	svgRowGap  = 150
	svgMargin  = 60
	svgLineGap = 13
)

// SVG draws table as a standalone SVG image, laid out in columns (the
// first state, the states a dispatch waits in, the final states); the arrows
// between two states carry the events of every row that joins them. The
// steps a dispatch took (taken, in order) are highlighted: each state it
// went through, each arrow and event it took with its step numbers, and its
// last state. It is drawn from the same table the engine runs, so the board
// cannot show a path the engine cannot take; a step the table does not
// have is listed under the picture rather than dropped.
func SVG(table []handoff.Transition, taken []Step) string {
	nodes := layout(table)
	type pair struct{ from, to handoff.State }
	var pairs []pair
	events := map[pair][]handoff.Event{}
	for _, t := range table {
		for _, f := range t.From {
			p := pair{f, t.To}
			if _, ok := events[p]; !ok {
				pairs = append(pairs, p)
			}
			events[p] = append(events[p], t.Event)
		}
	}
	order := map[Step][]int{}
	visited := map[handoff.State]bool{}
	var unknown []string
	for i, s := range taken {
		if !slices.Contains(events[pair{s.From, s.To}], s.Event) {
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

	var w, h float64
	for _, n := range nodes {
		w, h = max(w, n.x+svgNodeW), max(h, n.y+svgNodeH)
	}
	w += svgMargin
	h += svgMargin + float64(len(unknown))*16
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="fsm" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="dispatch state diagram">`+"\n", w, h, w, h)
	b.WriteString(svgDefs)
	// The start: a dot and an arrow into the first state.
	if a, ok := nodes[handoff.AwaitingStart]; ok {
		fmt.Fprintf(&b, `<circle cx="%.0f" cy="%.0f" r="6" fill="#333"/><path d="M%.0f,%.0f L%.0f,%.0f" stroke="#333" marker-end="url(#arrow)"/>`+"\n",
			a.x-34, a.cy(), a.x-28, a.cy(), a.x-2, a.cy())
	}
	// The states' boxes, which no label may cover.
	var labels []box
	for _, n := range nodes {
		labels = append(labels, box{n.x - 4, n.y - 4, svgNodeW + 8, svgNodeH + 8})
	}
	for _, p := range pairs {
		svgEdge(&b, p.from, p.to, nodes, events[p], order, &labels)
	}
	for _, s := range states(table) {
		n := nodes[s]
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
		fmt.Fprintf(&b, `<g class="%s" id="state-%s"><title>%s</title><rect x="%.0f" y="%.0f" width="%d" height="%d" rx="10"/>`+
			`<text x="%.0f" y="%.0f" text-anchor="middle" dominant-baseline="central">%s</text></g>`+"\n",
			class, s, html.EscapeString(s.Describe()), n.x, n.y, svgNodeW, svgNodeH, n.cx(), n.cy(), s)
	}
	for i, u := range unknown {
		fmt.Fprintf(&b, `<text class="unknown" x="10" y="%.0f" fill="#c00">not in the table: %s</text>`+"\n",
			h-float64(len(unknown)-i)*16+8, html.EscapeString(u))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// svgDefs are the diagram's arrow heads and styles.
const svgDefs = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#777"/></marker>` +
	`<marker id="arrow-taken" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#d9480f"/></marker></defs>` + "\n" +
	`<style>.fsm text{font:12px sans-serif}.fsm .edge path{fill:none;stroke:#999;stroke-width:1.2}` +
	`.fsm .edge.taken path{stroke:#d9480f;stroke-width:3}.fsm .label{font-size:11px;fill:#555;paint-order:stroke;stroke:#fff;stroke-width:3px}` +
	`.fsm .label .taken{fill:#d9480f;font-weight:bold}.fsm .node rect{fill:#f8f9fa;stroke:#666;stroke-width:1.2}` +
	`.fsm .node.visited rect{fill:#fff4e6;stroke:#d9480f;stroke-width:2}.fsm .node.current rect{fill:#d9480f}.fsm .node.current text{fill:#fff;font-weight:bold}` +
	`.fsm .node.final rect{stroke-width:2.5}</style>` + "\n"

// svgEdge draws the arrow from one state to another with its events'
// label (placed where no other label or box is), the steps of the
// dispatch's path (order: each step's numbers) highlighted.
func svgEdge(b *strings.Builder, fromState, toState handoff.State, nodes map[handoff.State]node, events []handoff.Event, order map[Step][]int, labels *[]box) {
	from, to := nodes[fromState], nodes[toState]
	class, marker := "edge", "arrow"
	for _, e := range events {
		if len(order[Step{fromState, toState, e}]) > 0 {
			class, marker = "edge taken", "arrow-taken"
		}
	}
	c := edgePath(from, to)
	anchor := "middle"
	if from.col == to.col && from != to {
		// Up or down a column: the label beside its arrow, not across
		// the arrow back.
		anchor = "end"
		if from.row > to.row {
			anchor = "start"
		}
	}
	lx, ly := placeLabel(c, events, anchor, labels)
	switch anchor {
	case "end":
		lx -= 6
	case "start":
		lx += 6
	}
	fmt.Fprintf(b, `<g class="%s" id="edge-%s-%s"><path d="%s" marker-end="url(#%s)"/>`, class, fromState, toState, c.path(), marker)
	ly -= float64(len(events)-1) * svgLineGap / 2
	fmt.Fprintf(b, `<text class="label" x="%.0f" y="%.0f" text-anchor="%s">`, lx, ly, anchor)
	for i, e := range events {
		attr := fmt.Sprintf(`x="%.0f" dy="%d"`, lx, svgLineGap)
		if i == 0 {
			attr = fmt.Sprintf(`x="%.0f"`, lx)
		}
		if n := order[Step{fromState, toState, e}]; len(n) > 0 {
			nums := make([]string, len(n))
			for j, k := range n {
				nums[j] = fmt.Sprint(k)
			}
			fmt.Fprintf(b, `<tspan %s class="taken" data-event="%s">%s (%s)</tspan>`, attr, e, e, strings.Join(nums, ","))
		} else {
			fmt.Fprintf(b, `<tspan %s data-event="%s">%s</tspan>`, attr, e, e)
		}
	}
	b.WriteString("</text></g>\n")
}

// node is a state's box.
type node struct {
	x, y     float64
	col, row int
}

func (n node) cx() float64 { return n.x + svgNodeW/2 }
func (n node) cy() float64 { return n.y + svgNodeH/2 }

// layout puts the first state in the first column, the final states in the
// last, and every other state in between at its distance from the first
// state (by the table's arrows); each column is centred vertically.
func layout(table []handoff.Transition) map[handoff.State]node {
	all := states(table)
	dist := map[handoff.State]int{handoff.AwaitingStart: 0}
	queue := []handoff.State{handoff.AwaitingStart}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range table {
			if slices.Contains(t.From, s) {
				if _, ok := dist[t.To]; !ok {
					dist[t.To] = dist[s] + 1
					queue = append(queue, t.To)
				}
			}
		}
	}
	last := 0
	for _, s := range all {
		if !s.Final() {
			last = max(last, dist[s])
		}
	}
	cols := make([][]handoff.State, last+2)
	for _, s := range all {
		c := dist[s]
		if s.Final() {
			c = last + 1
		}
		cols[c] = append(cols[c], s)
	}
	tallest := 0
	for _, c := range cols {
		tallest = max(tallest, len(c))
	}
	out := map[handoff.State]node{}
	for ci, c := range cols {
		// One box sits in the middle; several spread over the height.
		top, gap := float64(tallest-1)*svgRowGap/2, 0.0
		if len(c) > 1 {
			top, gap = 0, float64(tallest-1)*svgRowGap/float64(len(c)-1)
		}
		for ri, s := range c {
			out[s] = node{x: svgMargin + float64(ci)*svgColGap, y: svgMargin + top + float64(ri)*gap, col: ci, row: ri}
		}
	}
	return out
}

// curve is an arrow: a quadratic curve from (x0, y0) to (x1, y1), or a
// loop over a box.
type curve struct {
	x0, y0, cx, cy, x1, y1 float64
	loop                   bool
}

// at is the point of the curve at t (0 at its start, 1 at its end).
func (c curve) at(t float64) (float64, float64) {
	if c.loop {
		return c.cx, c.cy
	}
	return (1-t)*(1-t)*c.x0 + 2*t*(1-t)*c.cx + t*t*c.x1, (1-t)*(1-t)*c.y0 + 2*t*(1-t)*c.cy + t*t*c.y1
}

func (c curve) path() string {
	if c.loop {
		return fmt.Sprintf("M%.0f,%.0f C%.0f,%.0f %.0f,%.0f %.0f,%.0f", c.x1, c.y1, c.x1+25, c.y1-60, c.x0-25, c.y0-60, c.x0, c.y0)
	}
	return fmt.Sprintf("M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f", c.x0, c.y0, c.cx, c.cy, c.x1, c.y1)
}

// edgePath is the arrow from a to b: a curve bent more the more boxes it
// could cross, so that the arrows of a pair of states both ways part.
func edgePath(a, b node) curve {
	if a == b {
		return curve{x0: a.cx() - 30, y0: a.y, x1: a.cx() + 30, y1: a.y, cx: a.cx(), cy: a.y - 52, loop: true}
	}
	x0, y0 := border(a, b.cx(), b.cy())
	x1, y1 := border(b, a.cx(), a.cy())
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	skips := max(abs(a.col-b.col), abs(a.row-b.row)) - 1
	if a.col != b.col && a.row != b.row {
		skips = max(abs(a.col-b.col)-1, 0)
	}
	bend := 40 + 60*float64(skips)
	// The left of the direction of travel: the arrows back bend the other way.
	nx, ny := -dy/l, dx/l
	mx, my := (x0+x1)/2, (y0+y1)/2
	return curve{x0: x0, y0: y0, cx: mx + nx*bend, cy: my + ny*bend, x1: x1, y1: y1}
}

// box is a rectangle a label or a state takes.
type box struct{ x, y, w, h float64 }

func (a box) overlaps(b box) bool {
	return a.x < b.x+b.w && b.x < a.x+a.w && a.y < b.y+b.h && b.y < a.y+a.h
}

// placeLabel finds where on c a label of lines goes: the first point,
// from the middle outwards, where it covers no state and no label placed
// before; the middle if there is none. It returns the text's anchor point
// and records its box in taken.
func placeLabel(c curve, lines []handoff.Event, anchor string, taken *[]box) (float64, float64) {
	w := 0.0
	for _, l := range lines {
		w = max(w, float64(len(l))*6.3+4)
	}
	h := float64(len(lines)) * svgLineGap
	boxAt := func(x, y float64) box {
		// y is the first line's baseline, the lines centred on the point.
		top := y - h/2
		switch anchor {
		case "start":
			return box{x, top, w, h}
		case "end":
			return box{x - w, top, w, h}
		}
		return box{x - w/2, top, w, h}
	}
	for _, t := range []float64{0.5, 0.4, 0.6, 0.3, 0.7, 0.25, 0.75, 0.2, 0.8, 0.15, 0.85} {
		x, y := c.at(t)
		bx := boxAt(x, y)
		if !slices.ContainsFunc(*taken, bx.overlaps) {
			*taken = append(*taken, bx)
			return x, y
		}
	}
	x, y := c.at(0.5)
	*taken = append(*taken, boxAt(x, y))
	return x, y
}

// border is where the line from n's centre towards (tx, ty) leaves its box.
func border(n node, tx, ty float64) (float64, float64) {
	dx, dy := tx-n.cx(), ty-n.cy()
	if dx == 0 && dy == 0 {
		return n.cx(), n.cy()
	}
	s := math.Inf(1)
	if dx != 0 {
		s = math.Min(s, (svgNodeW/2)/math.Abs(dx))
	}
	if dy != 0 {
		s = math.Min(s, (svgNodeH/2)/math.Abs(dy))
	}
	return n.cx() + dx*s, n.cy() + dy*s
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
