package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/serve/web"
)

// GET /board/screen: the pane's lines in their colours, markup as text,
// with the classifier's status and reason; a pane that is not there says
// so.
func TestAPanesScreenInItsColours(t *testing.T) {
	priv := privatePane(t, "hwscr", 10, `printf '\033[31mred\033[0m <b>x</b>\n'; exec sleep 600`)
	h := controlBoard(t).Handler()
	get := func(pane string) (int, web.ScreenView) {
		var v web.ScreenView
		code := getJSON(t, h, "/board/screen?"+url.Values{"socket": {priv.Socket}, "pane": {pane}, "provider": {"codex"}}.Encode(), &v)
		return code, v
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
