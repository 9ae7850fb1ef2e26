package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/width"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// boardRow is one pane of the board, and the JSON line written when piped.
type boardRow struct {
	Pane     string         `json:"pane"`   // %id
	Target   string         `json:"target"` // session:window.pane
	Provider string         `json:"provider"`
	Status   handoff.Status `json:"status"`
	Since    time.Time      `json:"since"` // when the pane entered Status
	Reason   string         `json:"reason,omitempty"`
	// Note says which dispatch holds the pane, or timed out on it.
	Note string `json:"note,omitempty"`
}

// boardRows are the board's panes by %id, as last drawn.
type boardRows map[string]*boardRow

// see takes a pane's row as looked at now and reports whether it changed
// (its status, provider or note): a changed row is kept, with the time its
// status began (kept while the status stays).
func (rows boardRows) see(r boardRow) (*boardRow, bool) {
	old := rows[r.Pane]
	if old != nil && old.Status == r.Status && old.Provider == r.Provider && old.Note == r.Note {
		return old, false
	}
	r.Since = time.Now()
	if old != nil && old.Status == r.Status {
		r.Since = old.Since
	}
	rows[r.Pane] = &r
	return &r, true
}

// keep forgets the panes not seen in the last look (closed since).
func (rows boardRows) keep(seen map[string]bool) {
	for id := range rows {
		if !seen[id] {
			delete(rows, id)
		}
	}
}

// show ends a look at the board: it takes the rows seen now (see; a
// changed one is a JSON line on w unless the board is live), forgets the
// panes not among them, and redraws a live board.
func (rows boardRows) show(w io.Writer, live bool, now []boardRow) error {
	seen := make(map[string]bool, len(now))
	for _, r := range now {
		seen[r.Pane] = true
		if r, changed := rows.see(r); changed && !live {
			if err := json.NewEncoder(w).Encode(r); err != nil {
				return err
			}
		}
	}
	rows.keep(seen)
	if live {
		drawBoard(w, rows, termWidth(w))
	}
	return nil
}

// boardLook looks at every pane of a server once: a row each (rows are
// the board as last drawn), or for a board that cannot go on the exit
// status (said on stderr).
type boardLook func(ctx context.Context, rows boardRows) ([]boardRow, int)

// runBoard watches every pane of a tmux server: one line per pane —
// provider, status, how long in it — redrawn live on a terminal, and a
// JSON line per change when piped; a look every interval, until ctx ends.
func runBoard(ctx context.Context, interval time.Duration, stdout io.Writer, look boardLook) int {
	live := isTerminal(stdout)
	rows := boardRows{}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		now, code := look(ctx, rows)
		if ctx.Err() != nil {
			return exitOK
		}
		if code != exitOK {
			return code
		}
		if err := rows.show(stdout, live, now); err != nil {
			return exitFailure
		}
		select {
		case <-ctx.Done():
			return exitOK
		case <-t.C:
		}
	}
}

// boardLooks is the board of the flags' server as r reads it; a pane
// read here with --provider auto says, on its first look, which provider
// reads it.
func boardLooks(r paneReader, providerName string, stderr io.Writer) boardLook {
	return func(ctx context.Context, rows boardRows) ([]boardRow, int) {
		got, err := r.read(ctx, "", providerName)
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(stderr, "handoff-fsm watch: %v\n", err)
			}
			return nil, exitFailure
		}
		now := make([]boardRow, 0, len(got))
		for _, p := range got {
			if rows[p.ID] == nil {
				r.note(stderr, "watch", providerName, p)
			}
			now = append(now, boardRow{Pane: p.ID, Target: p.Target, Provider: p.Provider, Status: p.Status, Reason: p.Reason, Note: p.Note})
		}
		return now, exitOK
	}
}

// drawBoard redraws the board; with width > 0 each row is cut to it, so a
// long reason never wraps onto the next row.
func drawBoard(w io.Writer, rows boardRows, width int) {
	ids := make([]string, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return strings.Compare(rows[a].Target, rows[b].Target) })
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	line := func(format string, a ...any) {
		b.WriteString(cut(fmt.Sprintf(format, a...), width))
		b.WriteString("\n")
	}
	line("%-6s %-16s %-8s %-19s %8s  %s", "PANE", "TARGET", "PROVIDER", "STATUS", "FOR", "REASON / DISPATCH")
	for _, id := range ids {
		r := rows[id]
		reason := r.Reason
		if r.Note != "" {
			reason = r.Note
		}
		reason = cut(reason, 101)
		line("%-6s %-16s %-8s %-19s %8s  %s", r.Pane, r.Target, r.Provider, r.Status,
			time.Since(r.Since).Round(time.Second), reason)
	}
	io.WriteString(w, b.String())
}

// cut shortens s to at most width terminal columns (a wide character, CJK
// or emoji, takes two; a combining mark none), ending it with "…" when
// something was cut. width <= 0 leaves s as it is.
func cut(s string, width int) string {
	if width <= 0 || displayWidth(s) <= width {
		return s
	}
	cols := 0
	for i, r := range s {
		w := runeWidth(r)
		if cols+w > width-1 { // room for the "…"
			return s[:i] + "…"
		}
		cols += w
	}
	return s
}

func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || r == 0x200b:
		return 0
	case r < 0x1100:
		return 1
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
