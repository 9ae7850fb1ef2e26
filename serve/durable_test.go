package serve_test

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// A service stopped while dispatches wait (their state files kept) and a
// new one on the same folder: each ends as it would have, with its own
// answer, its prompt pasted once. (The kill -9 version, with the real
// command, is in cmd/handoff-fsm.)
func TestANewServiceGoesOnWithTheDispatchesOfTheLast(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 3, working(3*time.Second))
	dir := t.TempDir()
	svc := newService(t, dir, true)
	if _, err := serve.New(serve.Options{StateDir: dir}); err == nil {
		t.Fatal("a second service on the same folder was allowed")
	}
	roles := []string{"analyst", "programmer", "tester"}
	ids := map[string]string{}
	for i, p := range a.Panes {
		st := bodyState(t, a, p, roles[i], "answer "+roles[i])
		v, err := svc.Accept(serve.Request{State: st})
		if err != nil {
			t.Fatal(err)
		}
		ids[v.ID] = roles[i]
	}
	waitFor(t, "every agent working", func() bool {
		for id := range ids {
			if v, _ := svc.Get(context.Background(), id, 0); v.State != "Working" {
				return false
			}
		}
		return true
	})
	svc.Close()

	s := startService(t, dir, true)
	for id, role := range ids {
		v := s.final(t, id)
		if v.Outcome != "done" || content(v) != "answer "+role+"\n" {
			t.Errorf("%s: %+v %q", role, v, content(v))
		}
	}
	for i, p := range a.Panes {
		if n := strings.Count(a.Screen(t, p), "answer "+roles[i]); n != 1 {
			t.Errorf("pane %s shows its prompt %d times", p, n)
		}
	}
	archived, _ := filepath.Glob(filepath.Join(a.Workdir, ".tmp", "run-*", "*.md"))
	if len(archived) != 3 {
		t.Errorf("archived %v, want the three answers", archived)
	}
}

// bodyState is the persisted dispatch of a request to pane.
func bodyState(t testing.TB, a *agents, pane, role, prompt string) *dispatchstate.State {
	t.Helper()
	b := a.body(pane, role, prompt)
	st, err := b.State()
	if err != nil {
		t.Fatal(err)
	}
	st.Version = dispatchstate.Version
	return st
}

// A state the previous service left before the paste is sent once; one it
// left in the middle of the paste is not pasted again: it ends with an
// error saying so.
func TestAcceptedAndHalfPastedDispatchesAfterACrash(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 2, simtest.Quick())
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dispatches"), 0o700); err != nil {
		t.Fatal(err)
	}
	accepted := bodyState(t, a, a.Panes[0], "analyst", "accepted before the crash")
	accepted.ID, accepted.Created = "20260101-000000-aaaaaaaaaa", time.Now().UTC()
	half := bodyState(t, a, a.Panes[1], "tester", "pasting when the service died")
	half.ID, half.Created, half.SendStarted = "20260101-000000-bbbbbbbbbb", time.Now().UTC(), time.Now().UTC()
	for _, st := range []*dispatchstate.State{accepted, half} {
		if err := st.Write(filepath.Join(dir, "dispatches", st.ID+".json")); err != nil {
			t.Fatal(err)
		}
	}
	s := startService(t, dir, true)
	if v := s.final(t, accepted.ID); v.Outcome != "done" || content(v) != "accepted before the crash\n" {
		t.Fatalf("accepted: %+v %q", v, content(v))
	}
	v := s.final(t, half.ID)
	if v.Outcome != dispatchstate.OutcomeError || *v.Exit != 1 || !strings.Contains(v.Error, "not pasted again") {
		t.Fatalf("half pasted: %+v", v)
	}
	if n := strings.Count(a.Screen(t, a.Panes[1]), "pasting when the service died"); n != 0 {
		t.Fatalf("the half-pasted prompt was pasted again (%d)", n)
	}
	// Both are in the history, read from the folder.
	h, bad, err := serve.History(dir, serve.Filter{})
	if err != nil || bad != 0 || len(h) != 2 || !h[0].Final || !h[1].Final {
		t.Fatalf("history %+v (bad %d, %v)", h, bad, err)
	}
}

// A service killed after its paste and before its Enter leaves the prompt
// unsent in the agent's composer. The next service does not paste it again
// and clears it there, saying it never reached the agent, so the next
// dispatch to the pane is a message of its own, not joined to it.
func TestAPromptLeftUnsentInTheComposerIsClearedNotJoinedToTheNext(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, simtest.Quick())
	pane := a.Panes[0]
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dispatches"), 0o700); err != nil {
		t.Fatal(err)
	}
	cut := bodyState(t, a, pane, "tester", "pasted, never submitted")
	cut.ID, cut.Created, cut.SendStarted = "20260101-000000-cccccccccc", time.Now().UTC(), time.Now().UTC()
	if err := cut.Write(filepath.Join(dir, "dispatches", cut.ID+".json")); err != nil {
		t.Fatal(err)
	}
	// What the dead service had pasted, with no Enter after it.
	path, _ := handoff.ResponsePath(a.Workdir, "tester")
	rc, err := handoff.ReceiptFor(cut.Prompt, path, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := a.Priv.Run(ctx, strings.NewReader(handoff.WithInstruction(cut.Prompt, path, rc)),
		"load-buffer", "-b", "cut", "-", ";", "paste-buffer", "-p", "-d", "-b", "cut", "-t", pane); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the paste in the composer", func() bool { return strings.Contains(a.Screen(t, pane), "pasted, never submitted") })

	s := startService(t, dir, true)
	v := s.final(t, cut.ID)
	if v.Outcome != dispatchstate.OutcomeError || *v.Exit != 1 || !strings.Contains(v.Error, "did not reach the agent") {
		t.Fatalf("the dispatch cut in its paste: %+v", v)
	}
	next := s.submit(t, a.body(pane, "tester", "the next prompt"))
	if v := s.final(t, next.ID); v.Outcome != "done" || content(v) != "the next prompt\n" {
		t.Fatalf("the next dispatch to the pane: %+v, answer %q (want its own prompt alone)", v, content(v))
	}
}
