package diagram

import (
	"math"
	"slices"
	"sort"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// The SVG's geometry, in user units. Labels are set in a monospace font
// so their width is known here: charW per character, lineH per line.
const (
	nodeW    = 150.0
	nodeH    = 40.0
	colGap   = 300.0
	rowGap   = 120.0
	margin   = 70.0
	groupPad = 26.0
	charW    = 6.8
	lineH    = 14.0
	samples  = 80
	// finalsGap is the more room before the final states' column.
	finalsGap = 90.0
)

// arrow is one arrow of the diagram: from a state to a state, or, for the
// rows that leave every waiting state (group), from the frame drawn around
// them; it carries every event of the table that joins them.
type arrow struct {
	from   handoff.State // "" for the frame
	to     handoff.State
	events []handoff.Event
	// froms are the table's states the arrow stands for.
	froms []handoff.State
	c     curve
	pts   [][2]float64 // the curve, sampled
	label box
	lines []string
}

// arrows groups the table's rows into the arrows drawn: a row leaving
// every waiting state is one arrow from the frame; the others one per
// pair of states, each carrying every event that joins the pair.
func arrows(table []handoff.Transition, waiting []handoff.State) []*arrow {
	var out []*arrow
	find := func(from, to handoff.State) *arrow {
		for _, a := range out {
			if a.from == from && a.to == to {
				return a
			}
		}
		a := &arrow{from: from, to: to}
		out = append(out, a)
		return a
	}
	for _, t := range table {
		if len(waiting) > 1 && len(t.From) == len(waiting) && !slices.ContainsFunc(waiting, func(s handoff.State) bool { return !slices.Contains(t.From, s) }) {
			a := find("", t.To)
			a.events, a.froms = append(a.events, t.Event), waiting
			continue
		}
		for _, f := range t.From {
			a := find(f, t.To)
			a.events, a.froms = append(a.events, t.Event), []handoff.State{f}
		}
	}
	return out
}

// box is a rectangle a label or a state takes.
type box struct{ x, y, w, h float64 }

func (a box) overlaps(b box) bool {
	return a.x < b.x+b.w && b.x < a.x+a.w && a.y < b.y+b.h && b.y < a.y+a.h
}

func (a box) grow(d float64) box { return box{a.x - d, a.y - d, a.w + 2*d, a.h + 2*d} }

func (a box) contains(x, y float64) bool {
	return x > a.x && x < a.x+a.w && y > a.y && y < a.y+a.h
}

func (a box) cx() float64 { return a.x + a.w/2 }
func (a box) cy() float64 { return a.y + a.h/2 }

// curve is an arrow's path: a quadratic curve from (x0, y0) to (x1, y1).
type curve struct{ x0, y0, cx, cy, x1, y1 float64 }

func (c curve) at(t float64) (float64, float64) {
	return (1-t)*(1-t)*c.x0 + 2*t*(1-t)*c.cx + t*t*c.x1, (1-t)*(1-t)*c.y0 + 2*t*(1-t)*c.cy + t*t*c.y1
}

func (c curve) sample() [][2]float64 {
	out := make([][2]float64, samples+1)
	for i := range out {
		x, y := c.at(float64(i) / samples)
		out[i] = [2]float64{x, y}
	}
	return out
}

func (c curve) length() float64 {
	l, pts := 0.0, c.sample()
	for i := 1; i < len(pts); i++ {
		l += math.Hypot(pts[i][0]-pts[i-1][0], pts[i][1]-pts[i-1][1])
	}
	return l
}

// border is where the line from b's centre towards (tx, ty) leaves b.
func border(b box, tx, ty float64) (float64, float64) {
	dx, dy := tx-b.cx(), ty-b.cy()
	if dx == 0 && dy == 0 {
		return b.cx(), b.cy()
	}
	s := math.Inf(1)
	if dx != 0 {
		s = math.Min(s, (b.w/2)/math.Abs(dx))
	}
	if dy != 0 {
		s = math.Min(s, (b.h/2)/math.Abs(dy))
	}
	return b.cx() + dx*s, b.cy() + dy*s
}

// bent is the curve from a to b bent by bend to the left of its way (a
// negative bend: to the right).
func bent(x0, y0, x1, y1, bend float64) curve {
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	nx, ny := -dy/l, dx/l
	return curve{x0: x0, y0: y0, cx: (x0+x1)/2 + nx*bend, cy: (y0+y1)/2 + ny*bend, x1: x1, y1: y1}
}

// drawing is a laid-out diagram: the states' boxes, the frame around the
// waiting states, and the arrows with their labels.
type drawing struct {
	nodes   map[handoff.State]box
	order   []handoff.State
	waiting []handoff.State
	frame   box
	title   box // the frame's caption
	arrows  []*arrow
	w, h    float64
	bad     int     // arrows through a state, labels that found no place
	length  float64 // the arrows' length, which the search keeps short
}

// columns puts the first state in the first column, each waiting state one
// column after the furthest state an arrow forward leads to it from (an
// arrow forward: to a state found later from the first), and the final
// states in the last.
func columns(all []handoff.State, table []handoff.Transition) [][]handoff.State {
	found := []handoff.State{handoff.AwaitingStart}
	for i := 0; i < len(found); i++ {
		for _, t := range table {
			if slices.Contains(t.From, found[i]) && !slices.Contains(found, t.To) {
				found = append(found, t.To)
			}
		}
	}
	idx := func(s handoff.State) int { return slices.Index(found, s) }
	col := map[handoff.State]int{}
	for _, s := range found {
		if s.Final() {
			continue
		}
		for _, t := range table {
			for _, f := range t.From {
				if t.To == s && !f.Final() && f != s && idx(f) < idx(s) {
					col[s] = max(col[s], col[f]+1)
				}
			}
		}
	}
	last := 0
	for _, s := range all {
		if !s.Final() {
			last = max(last, col[s])
		}
	}
	cols := make([][]handoff.State, last+2)
	for _, s := range all {
		c := col[s]
		if s.Final() {
			c = last + 1
		}
		cols[c] = append(cols[c], s)
	}
	return cols
}

// layout tries every way of putting each column's states on the rows and
// keeps the best drawing: no arrow through a state it does not join, no
// label on a state, a label or an arrow, and then the shortest arrows.
func layout(table []handoff.Transition) *drawing {
	all := states(table)
	cols := columns(all, table)
	tallest := 0
	for _, c := range cols {
		tallest = max(tallest, len(c))
	}
	rows := max(2*tallest-1, 1)
	var waiting []handoff.State
	for _, s := range all {
		if !s.Final() {
			waiting = append(waiting, s)
		}
	}
	// Every placement of each column's states on distinct rows.
	choices := make([][][]int, len(cols))
	for i, c := range cols {
		choices[i] = placements(len(c), rows)
	}
	var cands []*drawing
	pick := make([]int, len(cols))
	for {
		rowOf := map[handoff.State]int{}
		for i, c := range cols {
			for j, s := range c {
				rowOf[s] = choices[i][pick[i]][j]
			}
		}
		cands = append(cands, draft(table, all, cols, rowOf, rows, waiting))
		i := 0
		for ; i < len(pick); i++ {
			if pick[i]++; pick[i] < len(choices[i]) {
				break
			}
			pick[i] = 0
		}
		if i == len(pick) || len(cands) > 5000 {
			break
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].bad != cands[j].bad {
			return cands[i].bad < cands[j].bad
		}
		return cands[i].cost() < cands[j].cost()
	})
	var best *drawing
	for _, d := range cands {
		d.placeLabels()
		if best == nil || d.bad < best.bad {
			best = d
		}
		if d.bad == 0 {
			break
		}
	}
	return best
}

// placements are the ways of putting n states on distinct rows of rows.
func placements(n, rows int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	var rec func(cur []int)
	rec = func(cur []int) {
		if len(cur) == n {
			out = append(out, slices.Clone(cur))
			return
		}
		for r := 0; r < rows; r++ {
			if !slices.Contains(cur, r) {
				rec(append(cur, r))
			}
		}
	}
	rec(nil)
	if n == 1 || rows == n {
		return out
	}
	// Keep the columns in the order the table names their states.
	return slices.DeleteFunc(out, func(p []int) bool { return !slices.IsSorted(p) })
}

func (d *drawing) cost() float64 { return d.length }

// draft lays the states out on rowOf and draws the arrows, each bent the
// least that keeps it off the states it does not join.
func draft(table []handoff.Transition, all []handoff.State, cols [][]handoff.State, rowOf map[handoff.State]int, rows int, waiting []handoff.State) *drawing {
	d := &drawing{nodes: map[handoff.State]box{}, order: all, waiting: waiting}
	top := margin + 30
	for ci, c := range cols {
		for _, s := range c {
			x := margin + 20 + float64(ci)*colGap
			if s.Final() {
				x += finalsGap // room for the frame's arrows and their labels
			}
			d.nodes[s] = box{x, top + float64(rowOf[s])*rowGap, nodeW, nodeH}
		}
	}
	var fx0, fy0, fx1, fy1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, s := range waiting {
		n := d.nodes[s]
		fx0, fy0, fx1, fy1 = min(fx0, n.x), min(fy0, n.y), max(fx1, n.x+n.w), max(fy1, n.y+n.h)
	}
	d.frame = box{fx0 - groupPad, fy0 - groupPad - 14, fx1 - fx0 + 2*groupPad, fy1 - fy0 + 2*groupPad + 14}
	d.title = box{d.frame.x + 8, d.frame.y + 4, float64(len(frameTitle))*charW + 6, lineH + 2}
	for _, n := range d.nodes {
		d.w, d.h = max(d.w, n.x+n.w), max(d.h, n.y+n.h)
	}
	d.h = max(d.h, float64(rows-1)*rowGap+top+nodeH)
	d.w += margin + 40
	d.h += margin + 30
	d.arrows = arrows(table, waiting)
	for _, a := range d.arrows {
		d.route(a)
		d.length += a.c.length()
	}
	return d
}

// frameTitle is the caption of the frame around the waiting states.
const frameTitle = "waiting for the answer: an arrow from this frame leaves any of these states"

// route draws a: the least bend (either way) that keeps it off every
// state it does not join and off the arrow the other way between the same
// states; an arrow from the frame starts on its border, on the side that
// faces its state.
func (d *drawing) route(a *arrow) {
	to := d.nodes[a.to]
	type cand struct {
		c    curve
		cost float64
	}
	var best *cand
	starts := [][2]float64{}
	if a.from == "" {
		f := d.frame
		for _, t := range []float64{0.15, 0.3, 0.5, 0.7, 0.85, 0.95} {
			starts = append(starts, [2]float64{f.x + f.w, f.y + f.h*t}, [2]float64{f.x + f.w*t, f.y}, [2]float64{f.x + f.w*t, f.y + f.h})
		}
	} else {
		n := d.nodes[a.from]
		x, y := border(n, to.cx(), to.cy())
		starts = append(starts, [2]float64{x, y})
	}
	if a.from == "" {
		// A frame's arrow starts away from the states, so it is not taken
		// for one of theirs.
		starts = slices.DeleteFunc(starts, func(p [2]float64) bool {
			for _, n := range d.nodes {
				if n.grow(45).contains(p[0], p[1]) {
					return true
				}
			}
			return false
		})
	}
	for _, st := range starts {
		ex, ey := border(to, st[0], st[1])
		for _, bend := range []float64{0, 25, -25, 50, -50, 80, -80, 120, -120, 170, -170} {
			c := bent(st[0], st[1], ex, ey, bend)
			cost := c.length() + math.Abs(bend)*0.5
			if room := labelWidth(a) + 110; c.length() < room {
				cost += 3000 // too short to carry its label beside it
			}
			pts := c.sample()
			for s, n := range d.nodes {
				if s == a.to || s == a.from {
					continue
				}
				for _, p := range pts {
					if n.grow(8).contains(p[0], p[1]) {
						cost += 10000
						break
					}
				}
			}
			if a.from == "" {
				// Out of the frame: it must not run back through it.
				for _, p := range pts[3 : len(pts)-3] {
					if d.frame.grow(-4).contains(p[0], p[1]) && !d.frame.contains(to.cx(), to.cy()) {
						cost += 10000
						break
					}
				}
			}
			for _, o := range d.arrows {
				if o == a || o.pts == nil {
					continue
				}
				cost += 400 * float64(near(pts, o.pts, 10))
			}
			if best == nil || cost < best.cost {
				best = &cand{c, cost}
			}
		}
	}
	a.c, a.pts = best.c, best.c.sample()
	if best.cost >= 10000 {
		d.bad++
	}
}

// labelWidth is the width of a's label, with room for step numbers.
func labelWidth(a *arrow) float64 {
	w := 0.0
	for _, e := range a.events {
		w = max(w, float64(len(e)+6)*charW)
	}
	return w
}

// near counts the points of p closer than dist to some point of q, away
// from both ends (where arrows into one state meet).
func near(p, q [][2]float64, dist float64) int {
	// Curves whose boxes are apart have no near points: most pairs.
	bp, bq := bounds(p[8:len(p)-8]).grow(dist), bounds(q[8:len(q)-8])
	if !bp.overlaps(bq) {
		return 0
	}
	n := 0
	for i := 8; i < len(p)-8; i += 3 {
		a := p[i]
		if !bq.grow(dist).contains(a[0], a[1]) {
			continue
		}
		for j := 8; j < len(q)-8; j += 3 {
			b := q[j]
			if math.Abs(a[0]-b[0]) < dist && math.Abs(a[1]-b[1]) < dist && math.Hypot(a[0]-b[0], a[1]-b[1]) < dist {
				n++
				break
			}
		}
	}
	return n
}

// bounds is the box around pts.
func bounds(pts [][2]float64) box {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
	}
	return box{x0, y0, x1 - x0 + 1e-9, y1 - y0 + 1e-9}
}

// placeLabels finds each arrow's label a place beside it: on no state, no
// other label and no arrow (its own included, so no arrow strikes its
// label through).
func (d *drawing) placeLabels() {
	taken := []box{d.title}
	for _, a := range d.arrows {
		w, h := 0.0, float64(len(a.lines))*lineH
		if len(a.lines) == 0 {
			for _, e := range a.events {
				a.lines = append(a.lines, string(e))
			}
			h = float64(len(a.lines)) * lineH
		}
		for _, l := range a.lines {
			// Room for a step number or two: "quiet (2,4)".
			w = max(w, float64(len(l)+6)*charW)
		}
		placed := false
		for pass := 0; pass < 2 && !placed; pass++ {
			for _, t := range []float64{0.5, 0.45, 0.55, 0.4, 0.6, 0.35, 0.65, 0.3, 0.7, 0.25, 0.75, 0.2, 0.8, 0.15, 0.85} {
				x, y := a.c.at(t)
				x2, y2 := a.c.at(t + 0.01)
				dx, dy := x2-x, y2-y
				l := math.Hypot(dx, dy)
				nx, ny := -dy/l, dx/l
				for _, side := range []float64{1, -1} {
					for _, gap := range []float64{5, 12} {
						// Beside the curve: the box's nearest corner or side
						// gap away from it, along the normal.
						off := gap + math.Abs(nx)*w/2 + math.Abs(ny)*h/2
						b := box{x + side*nx*off - w/2, y + side*ny*off - h/2, w, h}
						// First beside its own arrow only; then anywhere free.
						if d.free(b, taken) && (pass == 1 || d.nearest(b) == a) {
							a.label, placed = b, true
							break
						}
					}
					if placed {
						break
					}
				}
				if placed {
					break
				}
			}
		}
		if !placed {
			d.bad++
			x, y := a.c.at(0.5)
			a.label = box{x - w/2, y - h/2, w, h}
		}
		taken = append(taken, a.label)
	}
}

// nearest is the arrow closest to b's centre: a label is read as the
// label of the arrow next to it.
func (d *drawing) nearest(b box) *arrow {
	var best *arrow
	bd := math.Inf(1)
	for _, a := range d.arrows {
		for _, p := range a.pts {
			if dd := math.Hypot(p[0]-b.cx(), p[1]-b.cy()); dd < bd {
				best, bd = a, dd
			}
		}
	}
	return best
}

// free: b is inside the picture, on no state, no box of taken and no arrow.
func (d *drawing) free(b box, taken []box) bool {
	if b.x < 4 || b.y < 4 || b.x+b.w > d.w-4 || b.y+b.h > d.h-4 {
		return false
	}
	for _, n := range d.nodes {
		if b.overlaps(n.grow(4)) {
			return false
		}
	}
	for _, t := range taken {
		if b.overlaps(t.grow(3)) {
			return false
		}
	}
	g := b.grow(3)
	for _, a := range d.arrows {
		for _, p := range a.pts {
			if g.contains(p[0], p[1]) {
				return false
			}
		}
	}
	// The frame's own border is a line too.
	f := d.frame
	if b.overlaps(f) && !(b.x > f.x+3 && b.y > f.y+3 && b.x+b.w < f.x+f.w-3 && b.y+b.h < f.y+f.h-3) {
		return false
	}
	return true
}
