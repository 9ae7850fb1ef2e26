package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/mcptest"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/mcpserver"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

func TestMain(m *testing.M) { simtest.Main(m) }

// agents are simulated agents in a private tmux server (simtest.Agents);
// a zero Priv is a work folder alone.
type agents struct{ *simtest.Agents }

func startAgents(t *testing.T, n int, o simagent.Options) *agents {
	t.Helper()
	return &agents{simtest.Start(t, "hfmcp", n, o)}
}

// waitFor: testkit.WaitFor.
func waitFor(t *testing.T, what string, cond func() bool) { t.Helper(); testkit.WaitFor(t, what, cond) }

// rig is an MCP client session on a server whose engine is a service in
// this process, on the agents' tmux server and work folder.
type rig struct {
	*agents
	svc      *serve.Service
	session  *mcp.ClientSession
	progress mcptest.Progress
}

func quickConfig() *handoff.Config {
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 250*time.Millisecond, 5*time.Second, 120*time.Second
	return &cfg
}

func newRig(t *testing.T, a *agents) *rig {
	t.Helper()
	svc, err := serve.New(serve.Options{StateDir: t.TempDir(), Control: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{agents: a, svc: svc}
	o := mcpserver.Options{Workdir: a.Workdir, Config: quickConfig()}
	if a.Priv != nil {
		o.Socket = a.Priv.Socket
	}
	server := mcpserver.New(svc, o)
	client := r.progress.Client("test-supervisor")
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.session = cs
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
		_ = svc.Close()
	})
	return r
}

// call calls tool with args (and a progress token).
func (r *rig) call(t *testing.T, ctx context.Context, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	p.SetProgressToken("tok-" + tool)
	res, err := r.session.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// text is the result's text (mcptest.Text).
func text(res *mcp.CallToolResult) string { return mcptest.Text(res) }

// structured decodes a typed tool's structured result.
func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		t.Fatalf("structured content %v: %v", res.StructuredContent, err)
	}
	return v
}

func TestToolsListNamesTheFiveTools(t *testing.T) {
	t.Parallel()
	r := newRig(t, &agents{&simtest.Agents{Workdir: t.TempDir()}})
	res, err := r.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("tool %s has no description or input schema", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"assign", "dispatch_status", "handoff", "list_panes", "wait_any"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	// docs/mcp.md's table has a row for each tool the server lists.
	doc, err := os.ReadFile("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if !strings.Contains(string(doc), "\n| `"+name+"` |") {
			t.Errorf("docs/mcp.md's tool table has no row for %s", name)
		}
	}
	in, _ := json.Marshal(res.Tools[slices.IndexFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "handoff" })].InputSchema)
	for _, arg := range []string{"target", "socket", "role", "workdir", "prompt", "provider"} {
		if !strings.Contains(string(in), `"`+arg+`"`) {
			t.Errorf("handoff's input schema lacks %s: %s", arg, in)
		}
	}
}

// handoff returns the agent's answer as the tool result, byte for byte,
// reports the transitions as progress, and the dispatch is an ordinary one:
// done, exit 0, its file archived.
func TestHandoffReturnsTheAgentsAnswerWithProgress(t *testing.T) {
	t.Parallel()
	r := newRig(t, startAgents(t, 1, simtest.Quick()))
	ctx := context.Background()
	res := r.call(t, ctx, "handoff", map[string]any{"target": r.Panes[0], "role": "analyst",
		"prompt": "Summarise the design: $HOME, `quotes` and \\ too"})
	if res.IsError || text(res) != "Summarise the design: $HOME, `quotes` and \\ too\n" {
		t.Fatalf("result (error %v) %q", res.IsError, text(res))
	}
	got := r.progress.Until("finished:")
	joined := strings.Join(got, "\n")
	if len(got) == 0 || !strings.Contains(got[0], "accepted for pane "+r.Panes[0]) || !strings.Contains(joined, "→ Working") ||
		!strings.Contains(joined, "→ Done") || !strings.Contains(got[len(got)-1], "finished: done (exit 0)") {
		t.Fatalf("progress messages:\n%s", joined)
	}
	list := r.svc.Dispatches(serve.Filter{})
	if len(list) != 1 || list[0].Outcome != "done" || *list[0].Exit != 0 || list[0].ArchivedPath == "" {
		t.Fatalf("the service's history %+v", list)
	}
	if b, err := os.ReadFile(list[0].ArchivedPath); err != nil || !strings.HasSuffix(string(b), "\\ too\n") {
		t.Fatalf("archive %s: %q %v", list[0].ArchivedPath, b, err)
	}
}

// assign returns at once with an id; two agents work at the same time;
// dispatch_status waits for each one's answer.
func TestAssignTwoWorkersThenCollectWithDispatchStatus(t *testing.T) {
	t.Parallel()
	// The agents work until the test lets them finish.
	slow := simtest.Quick()
	release := filepath.Join(t.TempDir(), "finish")
	slow.WorkUntil = release
	r := newRig(t, startAgents(t, 2, slow))
	ctx := context.Background()
	var ids []string
	for i, pane := range r.Panes {
		res := r.call(t, ctx, "assign", map[string]any{"target": pane, "role": fmt.Sprintf("worker_%d", i), "prompt": fmt.Sprintf("task %d", i)})
		st := structured[mcpserver.Status](t, res)
		if res.IsError || st.ID == "" || st.Final {
			t.Fatalf("assign: %q %+v", text(res), st)
		}
		ids = append(ids, st.ID)
	}
	// Both were accepted before either finished: they run in parallel.
	for _, id := range ids {
		res := r.call(t, ctx, "dispatch_status", map[string]any{"id": id})
		if st := structured[mcpserver.Status](t, res); st.Final {
			t.Fatalf("dispatch %s already final while its agent works: %+v", id, st)
		}
	}
	// Both agents work at the same time.
	for _, id := range ids {
		waitFor(t, "dispatch "+id+" working", func() bool {
			return structured[mcpserver.Status](t, r.call(t, ctx, "dispatch_status", map[string]any{"id": id})).State == "Working"
		})
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		var st mcpserver.Status
		for !st.Final {
			st = structured[mcpserver.Status](t, r.call(t, ctx, "dispatch_status", map[string]any{"id": id, "wait_seconds": 60}))
		}
		if st.Outcome != "done" || st.Response == nil || *st.Response != fmt.Sprintf("task %d\n", i) || *st.Exit != 0 || len(st.Transitions) == 0 {
			t.Fatalf("dispatch %s: %+v", id, st)
		}
	}
}

// A handoff call the client cancels cancels its dispatch; the response the
// agent had written is archived, not deleted.
func TestCancelledHandoffCancelsTheDispatchAndArchivesTheFile(t *testing.T) {
	t.Parallel()
	busy := simtest.Quick()
	busy.Work = time.Minute
	r := newRig(t, startAgents(t, 1, busy))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.session.CallTool(ctx, &mcp.CallToolParams{Name: "handoff",
			Arguments: map[string]any{"target": r.Panes[0], "role": "tester", "prompt": "run the tests"}})
		done <- err
	}()
	waitFor(t, "the agent working", func() bool {
		l := r.svc.Dispatches(serve.Filter{})
		return len(l) == 1 && l[0].State == "Working"
	})
	path, _ := handoff.ResponsePath(r.Workdir, "tester")
	if err := os.WriteFile(path, []byte("half a report"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	var v serve.View
	waitFor(t, "the dispatch cancelled", func() bool {
		v = r.svc.Dispatches(serve.Filter{})[0]
		return v.Final
	})
	if v.Outcome != "cancelled" || v.ArchivedPath == "" {
		t.Fatalf("dispatch after the cancelled call: %+v", v)
	}
	if b, err := os.ReadFile(v.ArchivedPath); err != nil || string(b) != "half a report" {
		t.Fatalf("archive %s: %q %v", v.ArchivedPath, b, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the response file is still at %s: %v", path, err)
	}
}

// Bad input gets an error result naming the problem; nothing is sent.
func TestBadInputGetsAnErrorResultNamingTheProblem(t *testing.T) {
	t.Parallel()
	r := newRig(t, startAgents(t, 1, simtest.Quick()))
	ctx := context.Background()
	for _, c := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"unknown provider", map[string]any{"target": r.Panes[0], "role": "analyst", "prompt": "x", "provider": "cobol"}, []string{"provider", "cobol"}},
		{"bad role", map[string]any{"target": r.Panes[0], "role": "../etc", "prompt": "x"}, []string{"role"}},
		{"relative workdir", map[string]any{"target": r.Panes[0], "role": "analyst", "prompt": "x", "workdir": "proj"}, []string{"workdir", "absolute"}},
		{"blank prompt", map[string]any{"target": r.Panes[0], "role": "analyst", "prompt": "  "}, []string{"prompt"}},
		{"escape in prompt", map[string]any{"target": r.Panes[0], "role": "analyst", "prompt": "x\x1b[201~!touch y"}, []string{"prompt", "ESC", "byte 1"}},
		{"missing target", map[string]any{"role": "analyst", "prompt": "x"}, []string{"target"}},
	} {
		for _, tool := range []string{"handoff", "assign"} {
			res := r.call(t, ctx, tool, c.args)
			if !res.IsError || !has(text(res), c.want...) {
				t.Errorf("%s, %s: error %v, %q; want an error naming %v", c.name, tool, res.IsError, text(res), c.want)
			}
		}
	}
	if l := r.svc.Dispatches(serve.Filter{}); len(l) != 0 {
		t.Fatalf("bad input was dispatched: %+v", l)
	}
	// A pane that does not exist: the dispatch fails as a terminal error
	// (exit 4), saying the pane is gone.
	res := r.call(t, ctx, "handoff", map[string]any{"target": "%999", "role": "analyst", "prompt": "x"})
	if !res.IsError || !has(text(res), "%999", "failed", "terminal_error", "exit 4") {
		t.Fatalf("missing pane: error %v, %q", res.IsError, text(res))
	}
	res = r.call(t, ctx, "dispatch_status", map[string]any{"id": "nope"})
	if !res.IsError || !has(text(res), "nope") {
		t.Fatalf("unknown id: error %v, %q", res.IsError, text(res))
	}
}

// list_panes shows every pane with its provider and status, and the
// dispatch running on it.
func TestListPanesShowsTheBoard(t *testing.T) {
	t.Parallel()
	r := newRig(t, startAgents(t, 2, simtest.Quick()))
	res := r.call(t, context.Background(), "list_panes", map[string]any{"provider": "codex"})
	b := structured[mcpserver.Board](t, res)
	// The private server keeps a pane of its own alive (sleep): the agents
	// are the others.
	agents := slices.DeleteFunc(b.Panes, func(p mcpserver.Pane) bool { return p.Command == "sleep" })
	if res.IsError || len(agents) != 2 {
		t.Fatalf("board %q %+v", text(res), b)
	}
	for _, p := range agents {
		if !slices.Contains(r.Panes, p.ID) || p.Provider != "codex" || (p.Status != "idle" && p.Status != "completed") || p.Dispatch != "" {
			t.Errorf("pane %+v", p)
		}
	}
}

func has(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// A supervising agent that assigned work to two agents is woken by
// wait_any when the first finishes (here the second: its agent is let go
// first), with that one's answer and the other's id still running; with
// all it gets both.
func TestWaitAnyWakesTheSupervisorWithTheFirstToFinish(t *testing.T) {
	t.Parallel()
	slow, fast := simtest.Quick(), simtest.Quick()
	slow.WorkUntil = filepath.Join(t.TempDir(), "finish-slow")
	fast.WorkUntil = filepath.Join(t.TempDir(), "finish-fast")
	first := startAgents(t, 1, slow)
	second := startAgents(t, 1, fast)
	r := newRig(t, first)
	ctx := context.Background()
	var ids []string
	for i, a := range []*agents{first, second} {
		res := r.call(t, ctx, "assign", map[string]any{"target": a.Panes[0], "socket": a.Priv.Socket, "workdir": a.Workdir,
			"role": "worker", "prompt": fmt.Sprintf("task %d", i)})
		st := structured[mcpserver.Status](t, res)
		if res.IsError || st.ID == "" {
			t.Fatalf("assign: %q", text(res))
		}
		ids = append(ids, st.ID)
	}
	if err := os.WriteFile(fast.WorkUntil, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := r.call(t, ctx, "wait_any", map[string]any{"ids": ids})
	w := structured[mcpserver.WaitResult](t, res)
	if res.IsError || len(w.Ended) != 1 || w.Ended[0].ID != ids[1] || w.Ended[0].Response == nil || *w.Ended[0].Response != "task 1\n" {
		t.Fatalf("wait_any: %q %+v; want %s done with its answer", text(res), w, ids[1])
	}
	if len(w.Pending) != 1 || w.Pending[0] != ids[0] {
		t.Fatalf("still running: %v, want %s", w.Pending, ids[0])
	}
	if err := os.WriteFile(slow.WorkUntil, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res = r.call(t, ctx, "wait_any", map[string]any{"ids": ids, "all": true})
	if w := structured[mcpserver.WaitResult](t, res); res.IsError || len(w.Ended) != 2 || len(w.Pending) != 0 {
		t.Fatalf("wait_any all: %q %+v", text(res), w)
	}
	if res := r.call(t, ctx, "wait_any", map[string]any{"ids": []string{"nosuch"}}); !res.IsError || !has(text(res), "nosuch") {
		t.Fatalf("an unknown id: %q", text(res))
	}
}
