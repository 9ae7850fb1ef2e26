package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// A dispatch that asks for provider "auto" is read with the provider that
// recognises its pane, and that name is what the dispatch keeps (a resume
// reads the pane with the same rules).
func TestProviderAutoIsRecognizedAndKept(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, simtest.Quick())
	s := startService(t, "", true)
	b := a.body(a.Panes[0], "analyst", "Summarise the design")
	b.Provider = "auto"
	v := s.submit(t, b)
	if v.Provider != "codex" {
		t.Fatalf("accepted with provider %q, want codex (the simulated agent draws Codex's screens)", v.Provider)
	}
	f := s.final(t, v.ID)
	if f.Outcome != "done" || content(f) != "Summarise the design\n" || f.Provider != "codex" {
		t.Fatalf("final view %+v (content %q)", f, content(f))
	}
	rows, err := s.client.Panes(context.Background(), url.Values{"socket": {a.Priv.Socket}, "target": {a.Panes[0]}})
	if err != nil || len(rows) != 1 || rows[0].Provider != "codex" {
		t.Fatalf("board %+v, %v: want the pane read as codex", rows, err)
	}
}

// A pane no provider recognises is a 400 on the provider field that names
// the candidates, and nothing is kept or sent.
func TestProviderAutoWithNoMatchIsABadRequest(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	priv, err := tmuxdriver.StartPrivate(context.Background(), tmuxdriver.PrivateOptions{Prefix: "hfserve", Session: "plain",
		Width: 80, Height: 24, Dir: t.TempDir(), Command: "exec cat", KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = priv.Close(context.Background()) })
	s := startService(t, "", false)
	body, _ := json.Marshal(serve.SubmitBody{Pane: dispatchstate.Pane{Target: priv.Pane, Socket: priv.Socket, Provider: "auto"}, Role: "analyst", Workdir: t.TempDir(),
		Prompt: "hi"})
	resp, err := http.Post(s.url+"/v1/dispatches", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e serve.APIError
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != http.StatusBadRequest || e.Field != "provider" || !strings.Contains(e.Error, "codex") {
		t.Fatalf("HTTP %d %+v; want 400 on provider naming the candidates", resp.StatusCode, e)
	}
	if entries, _ := os.ReadDir(filepath.Join(s.dir, "dispatches")); len(entries) != 0 {
		t.Fatalf("a refused dispatch left state files: %v", entries)
	}
}
