package serve_test

import (
	"context"
	"encoding/json"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// simEnv, when set, makes this test binary a simulated agent with the
// simagent.Options it holds (JSON): what the tests run in tmux panes.
const simEnv = "SERVE_TEST_SIMAGENT"

func TestMain(m *testing.M) {
	simagent.RunIfEnv(simEnv)
	os.Exit(m.Run())
}

// requireTmux: testkit.RequireTmux.
func requireTmux(t testing.TB) { t.Helper(); testkit.RequireTmux(t) }

// agents is a private tmux server (killed when the test ends) whose panes
// each run a simulated agent.
type agents struct {
	priv    *tmuxdriver.Private
	panes   []string
	workdir string
}

// simCommand is the shell command that runs this binary as a simulated
// agent with o.
func simCommand(o simagent.Options) string {
	b, _ := json.Marshal(o)
	return "exec env " + simEnv + "=" + handoff.ShellQuote(string(b)) + " " + handoff.ShellQuote(os.Args[0])
}

// quickAgent answers after a short startup and work, echoing the prompt.
func quickAgent() simagent.Options {
	return simagent.Options{Echo: true, Startup: 200 * time.Millisecond, Work: 500 * time.Millisecond, Stream: 200 * time.Millisecond}
}

// startAgents starts n simulated agents with o in one private tmux server,
// in the same work folder, and waits for their prompts.
func startAgents(t testing.TB, n int, o simagent.Options) *agents {
	t.Helper()
	requireTmux(t)
	work := t.TempDir()
	o.Cwd = work
	ctx := context.Background()
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "hfserve", Session: "agents",
		Width: 110, Height: 32, Dir: work, Command: simCommand(o), KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = priv.Close(context.Background()) })
	a := &agents{priv: priv, panes: []string{priv.Pane}, workdir: work}
	for len(a.panes) < n {
		out, err := priv.Run(ctx, nil, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "agents:", "-c", work, simCommand(o))
		if err != nil {
			t.Fatal(err)
		}
		a.panes = append(a.panes, strings.TrimSpace(out))
	}
	for _, p := range a.panes {
		a.waitQuiet(t, p)
	}
	return a
}

// waitQuiet waits until the agent in pane shows its prompt (20 s at most).
func (a *agents) waitQuiet(t testing.TB, pane string) {
	t.Helper()
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: a.priv.Server, Target: pane, Classifier: codex.New()})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := p.Status(context.Background())
		if err == nil && st.Quiet() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent in %s never showed its prompt (%v, %v)", pane, st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screen is what pane shows, with its scrollback.
func (a *agents) screen(t testing.TB, pane string) string {
	t.Helper()
	out, err := a.priv.Run(context.Background(), nil, "capture-pane", "-p", "-J", "-S", "-2000", "-t", pane)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// body is a dispatch to pane of a, with quick settings.
func (a *agents) body(pane, role, prompt string) serve.SubmitBody {
	poll, grace, timeout := 0.25, 5.0, 120.0
	return serve.SubmitBody{Target: pane, Socket: a.priv.Socket, Role: role, Workdir: a.workdir, Prompt: prompt,
		Config: &serve.ConfigBody{Poll: &poll, IdleGrace: &grace, ResponseTimeout: &timeout}}
}

// service is a Service on a fresh state folder, with its API on a test
// HTTP server; both end with the test.
type service struct {
	*serve.Service
	dir    string
	client *serve.Client
	url    string
}

func startService(t testing.TB, dir string, control bool) *service {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	svc, err := serve.New(serve.Options{StateDir: dir, Control: control, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(svc.Handler(""))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		_ = svc.Close()
	})
	addr, _ := serve.ParseAddress("tcp:" + strings.TrimPrefix(ts.URL, "http://"))
	return &service{Service: svc, dir: dir, client: serve.NewClient(addr, ""), url: ts.URL}
}

// final waits (a minute at most) for dispatch id to be over.
func (s *service) final(t testing.TB, id string) serve.View {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := s.client.Wait(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func content(v serve.View) string {
	if v.Content == nil {
		return "<none>"
	}
	return *v.Content
}
