package serve_test

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/panelock"
)

// A dispatch times out while its agent still works: the service's board
// says so on the pane (the timed-out dispatch, and a note in words), as
// status and the command's board do, until a later dispatch sees the agent
// ready again.
func TestTheBoardShowsTheDispatchThatTimedOutOnAPane(t *testing.T) {
	t.Parallel()
	o := simtest.Quick()
	o.WorkUntil = filepath.Join(t.TempDir(), "gate") // never opened: works on
	a := startAgents(t, 1, o)
	s := startService(t, "", true)
	b := a.body(a.Panes[0], "analyst", "FIRST task alpha")
	b.Config.IdleGrace, b.Config.ResponseTimeout = time.Second, 2*time.Second
	v := s.submit(t, b)
	if f := s.final(t, v.ID); f.Report.Error != "timeout" {
		t.Fatalf("the dispatch ended %s/%s, want a timeout", f.Outcome, f.Report.Error)
	}
	rows, err := s.client.Panes(context.Background(), url.Values{"socket": {a.Priv.Socket}, "target": {a.Panes[0]}})
	if err != nil || len(rows) != 1 {
		t.Fatalf("board %+v, %v", rows, err)
	}
	r := rows[0]
	if r.TimedOut != nil {
		t.Cleanup(func() {
			if dir, err := panelock.Dir(); err == nil {
				_ = panelock.ClearTimedOut(dir, r.TimedOut.Pane)
			}
		})
	}
	if r.TimedOut == nil || r.TimedOut.Role != "analyst" || r.TimedOut.PromptHead != "FIRST task alpha" ||
		!strings.Contains(r.Note, "still working on the timed-out dispatch of role analyst") {
		t.Fatalf("the board's row for the pane: %+v, want the timed-out dispatch and a note", r)
	}
}
