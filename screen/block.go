package screen

import "strings"

// Block is the newest block of a history a CLI draws inline (pi, OMP),
// read bottom up from its chrome: blocks are set apart by two blank lines,
// a message's paragraphs by one.
type Block struct {
	// Lines are the block's lines, bottom up; a zero Line stands for a
	// paragraph break.
	Lines []Line
	// Top is the number of the line that ended the walk above the block
	// (the second blank line, or a line that ends it); 0 at the capture's
	// top.
	Top int
	// Working is the nearest working line under the block (N 0: none):
	// working lines there are no part of it.
	Working Line
	// Scanned and NonBlank count the lines read, and those not blank.
	Scanned, NonBlank int
}

// NewestBlock reads the newest block up from where ls is: working reports
// a CLI's working line ("⠴ Working..."), which may stand under the block;
// ends, when set, reports a line that ends the block above its lines
// (another block's box edge with one blank line between).
func NewestBlock(ls *Lines, working func(t string) bool, ends func(Line) bool) Block {
	var b Block
	blanks := 0
	for {
		ln, ok := ls.PrevLine()
		if !ok {
			return b
		}
		b.Scanned++
		if ln.T == "" {
			if len(b.Lines) > 0 {
				if blanks++; blanks == 2 {
					b.Top = ln.N
					return b
				}
			}
			continue
		}
		b.NonBlank++
		if len(b.Lines) > 0 && ends != nil && ends(ln) {
			b.Top = ln.N
			return b
		}
		if len(b.Lines) > 0 && blanks == 1 {
			b.Lines = append(b.Lines, Line{}) // a paragraph break
		}
		blanks = 0
		if len(b.Lines) == 0 && working(ln.T) {
			if b.Working.N == 0 {
				b.Working = ln
			}
			continue
		}
		b.Lines = append(b.Lines, ln)
	}
}

// BlockText is a block's lines (bottom up) as text, top down, for the
// fallback path: indent columns dropped from each line, paragraph breaks
// kept, blank lines at its end dropped; a copy that does not hold the
// capture.
func BlockText(lines []Line, indent int) string {
	out := make([]string, 0, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		out = append(out, DropIndent(lines[i].Text, indent))
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return strings.Clone(strings.Join(out, "\n"))
}

// Newest is what a reading of a block history reports of its newest block
// (embedded in pi's and OMP's Signals). Line numbers count from the end of
// the capture; 0 means not found.
type Newest struct {
	// Newest is the block's last line and NewestLine where it is.
	Newest     string `json:"newest,omitempty"`
	NewestLine int    `json:"newest_line"`
	// Header: the newest block is the CLI's header (no prompt yet).
	Header bool `json:"header,omitempty"`
	// BlockTop is the line of the blank pair above the newest block (0:
	// the block reaches the top of the capture): where the reading stops.
	BlockTop int `json:"block_top"`
}

// NewestBlock reads the newest block up from where the walk is, counting
// what it reads (see NewestBlock for working and ends), and records it in
// n: header reports a line of the CLI's header (its welcome, a tip).
func (w *Walk) NewestBlock(working func(t string) bool, ends func(Line) bool, header func(t string) bool, n *Newest) Block {
	b := NewestBlock(&w.Lines, working, ends)
	w.Scanned += b.Scanned
	w.NonBlank += b.NonBlank
	n.BlockTop = b.Top
	if len(b.Lines) > 0 {
		n.Newest, n.NewestLine = Signal(b.Lines[0].T), b.Lines[0].N
	}
	for _, ln := range b.Lines {
		if header(ln.T) {
			n.Header = true
		}
	}
	return b
}
