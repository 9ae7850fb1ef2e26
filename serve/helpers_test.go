package serve_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

func TestMain(m *testing.M) { simtest.Main(m) }

// requireTmux: testkit.RequireTmux.
func requireTmux(t testing.TB) { t.Helper(); testkit.RequireTmux(t) }

// agents are simulated agents in a private tmux server (simtest.Agents),
// with the service's request for each.
type agents struct{ *simtest.Agents }

// startAgents starts n simulated agents with o in one private tmux server,
// in the same work folder, and waits for their prompts.
func startAgents(t testing.TB, n int, o simagent.Options) *agents {
	t.Helper()
	return &agents{simtest.Start(t, "hfserve", n, o)}
}

// body is a dispatch to pane of a, with quick settings.
func (a *agents) body(pane, role, prompt string) serve.SubmitBody {
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 250*time.Millisecond, 5*time.Second, 120*time.Second
	return serve.SubmitBody{Pane: dispatchstate.Pane{Target: pane, Socket: a.Priv.Socket}, Role: role, Workdir: a.Workdir, Prompt: prompt, Config: &cfg}
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
	svc := newService(t, dir, control)
	ts := httptest.NewServer(svc.Handler(""))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		_ = svc.Close()
	})
	addr, _ := serve.ParseAddress("tcp:" + strings.TrimPrefix(ts.URL, "http://"))
	return &service{Service: svc, dir: dir, client: serve.NewClient(addr, ""), url: ts.URL}
}

// newService is a Service on dir as serve runs it, its file events on
// (and with control, its control-mode clients): the test closes it, to
// start another on dir, or leaves it to startService's cleanup.
func newService(t testing.TB, dir string, control bool) *serve.Service {
	t.Helper()
	svc, err := serve.New(serve.Options{StateDir: dir, Control: control, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// submit submits b to s and fails the test if it is not accepted.
func (s *service) submit(t testing.TB, b serve.SubmitBody) serve.View {
	t.Helper()
	v, err := s.client.Submit(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// working is simtest.Quick with a turn that works for d.
func working(d time.Duration) simagent.Options {
	o := simtest.Quick()
	o.Work = d
	return o
}

// final waits (a minute at most) for dispatch id to be over.
func (s *service) final(t testing.TB, id string) serve.View {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := serve.Wait(ctx, s.client, id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func content(v serve.View) string {
	if !v.Whole {
		return "<none>"
	}
	return v.Content
}
