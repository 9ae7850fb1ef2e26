package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/serve/web"
)

// The board's panes: each server given, each pane with its status, since
// when the board has seen it so, and the mark of a dispatch that timed out
// on it.
func TestThePanesOfEachServerWithTheirMarks(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the pane markers' folder
	ctx := context.Background()
	priv := privatePane(t, "hwweb", 20, "exec sleep 600")
	h := controlBoard(t, priv.Server).Handler()
	get := func() web.ServerPanes {
		t.Helper()
		var out struct{ Servers []web.ServerPanes }
		if code := getJSON(t, h, "/board/panes", &out); code != http.StatusOK || len(out.Servers) != 1 {
			t.Fatalf("GET /board/panes: %d %+v", code, out)
		}
		return out.Servers[0]
	}
	first := get()
	if first.Socket != priv.Socket || first.Error != "" || len(first.Panes) != 1 || first.Panes[0].ID != priv.Pane {
		t.Fatalf("panes %+v", first)
	}
	p := first.Panes[0]
	if p.Status == "" || p.Reason == "" || p.Since.IsZero() || p.TimedOut != "" {
		t.Fatalf("pane %+v", p)
	}

	ids, err := priv.Server.Identities(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := panelock.Dir()
	if err != nil {
		t.Fatal(err)
	}
	if err := panelock.MarkTimedOut(dir, panelock.TimedOut{Role: "analyst", Started: time.Now().Add(-time.Hour),
		TimedOutAt: time.Now(), PID: 1, Pane: ids[priv.Pane]}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	again := get().Panes[0]
	if again.TimedOut == "" {
		t.Errorf("the timed-out mark is not shown: %+v", again)
	}
	if again.Status == p.Status && !again.Since.Equal(p.Since) {
		t.Errorf("since moved from %v to %v while the status stayed %s", p.Since, again.Since, p.Status)
	}
}
