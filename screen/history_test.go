package screen

import (
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// A walk up a history of cells: the error's continuation lines join its
// text (the nearest ones only), the newest cell and the bottom-most reply
// are kept, the newest message's offset is found, and the verdict follows.
func TestHistoryRecordsTheNewestCellAndTheReply(t *testing.T) {
	var lines []string
	lines = append(lines, "> the prompt", "* an old answer", "! boom")
	for i := range 20 {
		lines = append(lines, "  part "+string(rune('a'+i)))
	}
	capture := strings.Join(lines, "\n") + "\n"
	var c Cells
	c.Init(capture)
	c.Message = -1
	var turn Turn
	h := History{Cells: &c, Turn: &turn}
	for {
		ln, ok := h.Next()
		if !ok {
			break
		}
		switch {
		case strings.HasPrefix(ln.T, "> "):
			turn.LastUser, turn.LastUserLine = ln.T[2:], ln.N
		case ln.Indent > 0:
			h.Continue(ln)
		case strings.HasPrefix(ln.T, "! "):
			h.Cell(CellError, ln.T[2:], ln)
		case strings.HasPrefix(ln.T, "* "):
			h.Cell(CellMessage, ln.T[2:], ln)
		}
	}
	if turn.Newest != CellError || turn.Reply != CellMessage || turn.LastUser != "the prompt" || c.NonBlank != 23 {
		t.Fatalf("turn %+v after %d lines", turn, c.NonBlank)
	}
	if want := "boom part a part b"; !strings.HasPrefix(turn.Error, want) || !strings.HasSuffix(turn.Error, "part p") {
		t.Errorf("error %q: want the cell and the 16 lines right under it, %q … part p", turn.Error, want)
	}
	if c.Message != strings.Index(capture, "* an old answer") {
		t.Errorf("message at %d", c.Message)
	}
	if st, reason := turn.Settled(ChromeComposer); st != handoff.StatusError || reason != ReasonError {
		t.Errorf("settled: %s (%s)", st, reason)
	}
	turn.Newest = CellMessage
	if st, _ := turn.Settled(ChromeComposer); st != handoff.StatusCompleted {
		t.Errorf("a reply: %s", st)
	}
	if st, reason := turn.Settled(ChromeNone); st != handoff.StatusIdle || reason != ReasonNoComposer {
		t.Errorf("no composer: %s (%s)", st, reason)
	}
}

// Before any sign of work: blanks only are an error, a dialog waits.
func TestBlockedIsAnEmptyScreenOrADialog(t *testing.T) {
	if st, reason, ok := Blocked("x", 0, ChromeDialog, "a dialog"); !ok || st != handoff.StatusError || reason != ReasonEmpty {
		t.Errorf("blanks only: %s (%s) %v", st, reason, ok)
	}
	if st, reason, ok := Blocked("x", 3, ChromeDialog, "a dialog"); !ok || st != handoff.StatusWaitingUserAnswer || reason != "a dialog" {
		t.Errorf("a dialog: %s (%s) %v", st, reason, ok)
	}
	if _, _, ok := Blocked("x", 3, ChromeComposer, "a dialog"); ok {
		t.Error("a composer is not blocked")
	}
	if st, _, ok := Blocked("\u2002\n\u3000\n", 2, ChromeNone, ""); !ok || st != handoff.StatusError {
		t.Errorf("blanks the walk keeps: %s %v", st, ok)
	}
}

// A history of cells read up to the last prompt: the status line under it
// is taken, a note is no cell, a continuation line joins the error cell.
func TestReadCellsStopsAtTheLastPrompt(t *testing.T) {
	capture := "> an old prompt\n* old\n> the prompt\n* the answer\n! boom\n  why\n~ a note\n# status\n"
	var c Cells
	c.Init(capture)
	c.Message = -1
	var turn Turn
	status := ""
	h := History{Cells: &c, Turn: &turn}
	h.ReadCells(0, func(ln Line) bool {
		if !strings.HasPrefix(ln.T, "# ") {
			return false
		}
		status = ln.T
		return true
	}, func(ln Line) (string, bool) {
		return strings.TrimPrefix(ln.T, "> "), strings.HasPrefix(ln.T, "> ")
	}, func(t string) (string, string) {
		switch t[0] {
		case '*':
			return CellMessage, t[2:]
		case '!':
			return CellError, t[2:]
		}
		return "note", t[2:]
	}, "note")
	if status != "# status" || turn.LastUser != "the prompt" || turn.LastUserLine != 6 {
		t.Fatalf("status %q, last prompt %q at %d", status, turn.LastUser, turn.LastUserLine)
	}
	if turn.Newest != CellError || turn.Error != "boom why" || turn.Reply != CellMessage || turn.ReplyLine != 5 {
		t.Errorf("turn %+v", turn)
	}
	if c.Message != strings.Index(capture, "* the answer") {
		t.Errorf("message at %d", c.Message)
	}
}
