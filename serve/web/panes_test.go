package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/serve/web"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// The board's panes: each server given, each pane with its status, since
// when the board has seen it so, and the mark of a dispatch that timed out
// on it.
func TestThePanesOfEachServerWithTheirMarks(t *testing.T) {
	testkit.RequireTmux(t)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the pane markers' folder
	ctx := context.Background()
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "hwweb", Session: "s", Width: 80, Height: 20,
		Dir: t.TempDir(), Command: "exec sleep 600"})
	if err != nil {
		t.Fatal(err)
	}
	defer priv.Close(ctx)
	svc, err := serve.New(serve.Options{StateDir: t.TempDir(), Control: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	b, err := web.New(svc, web.Options{Addr: "127.0.0.1:1", Token: token, Servers: []tmuxdriver.Server{priv.Server}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	h := b.Handler()
	get := func() web.ServerPanes {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://127.0.0.1:1/board/panes", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var out struct{ Servers []web.ServerPanes }
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil || len(out.Servers) != 1 {
			t.Fatalf("GET /board/panes: %d %s", rec.Code, rec.Body)
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
