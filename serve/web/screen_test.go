package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/serve/web"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// GET /board/screen: the pane's lines in their colours, markup as text,
// with the classifier's status and reason; a pane that is not there says
// so.
func TestAPanesScreenInItsColours(t *testing.T) {
	testkit.RequireTmux(t)
	ctx := context.Background()
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "hwscr", Session: "s", Width: 80, Height: 10,
		Dir: t.TempDir(), Command: `printf '\033[31mred\033[0m <b>x</b>\n'; exec sleep 600`})
	if err != nil {
		t.Fatal(err)
	}
	defer priv.Close(ctx)
	svc, err := serve.New(serve.Options{StateDir: t.TempDir(), Control: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	b, err := web.New(svc, web.Options{Addr: "127.0.0.1:1", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	get := func(pane string) (int, web.ScreenView) {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:1/board/screen?"+url.Values{"socket": {priv.Socket}, "pane": {pane}, "provider": {"codex"}}.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		b.Handler().ServeHTTP(rec, req)
		var v web.ScreenView
		_ = json.Unmarshal(rec.Body.Bytes(), &v)
		return rec.Code, v
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, v := get(priv.Pane)
		if code != http.StatusOK {
			t.Fatalf("GET /board/screen: %d %+v", code, v)
		}
		var line []web.Span
		for _, l := range v.Lines {
			if len(l.Spans) > 0 {
				line = l.Spans
				break
			}
		}
		if len(line) == 2 && !v.Gone { // (gone while the shell still runs printf)
			if s := line; s[0].Text != "red" || s[0].FG != "#f14c4c" || s[1].Text != " <b>x</b>" || s[1].FG != "" {
				t.Errorf("the first line: %+v", s)
			}
			if v.Status == "" || v.Reason == "" || v.Provider != "codex" || v.Gone {
				t.Errorf("the reading: %+v", v.PaneScreen)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pane never showed its line: %+v", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, v := get("%999"); code != http.StatusOK || !v.Gone || v.Reason == "" {
		t.Errorf("a pane that is not there: %d %+v", code, v.PaneScreen)
	}
}
