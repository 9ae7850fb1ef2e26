package serve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// A coordinator that gave work to three agents is woken by the first to
// finish, without polling: the wait on "any of these" returns that one with
// its answer and names the others as still running; a wait on "all"
// returns once the last is over. Each agent works until the test lets it
// finish, so which one ends first is the test's doing, not the clock's.
func TestAWaitOnAnyReturnsTheFirstDispatchToEnd(t *testing.T) {
	t.Parallel()
	s := startService(t, "", false)
	gates := make([]string, 3)
	ids := make([]string, 3)
	for i := range gates {
		o := simtest.Quick()
		gates[i] = filepath.Join(t.TempDir(), "finish")
		o.WorkUntil = gates[i]
		a := startAgents(t, 1, o)
		v := s.submit(t, a.body(a.Panes[0], "analyst", "Worker task"))
		ids[i] = v.ID
	}
	ctx := context.Background()

	// Nobody has finished: a short wait returns with all three pending.
	w, err := s.WaitFor(ctx, ids, serve.WaitAny, 300*time.Millisecond)
	if err != nil || len(w.Ended) != 0 || len(w.Pending) != 3 {
		t.Fatalf("before any finished: %+v, %v; want all three pending", w, err)
	}
	// The client's wait with a limit: it ends at the limit, naming the three
	// still running, without an error.
	w, err = s.client.WaitFor(ctx, ids, serve.WaitAny, 300*time.Millisecond)
	if err != nil || len(w.Ended) != 0 || len(w.Pending) != 3 {
		t.Fatalf("the client's wait with a limit, before any finished: %+v, %v; want all three pending", w, err)
	}

	// The second worker finishes: the wait on any wakes with it alone.
	if err := os.WriteFile(gates[1], nil, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err = s.client.WaitFor(ctx, ids, serve.WaitAny, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Ended) != 1 || w.Ended[0].ID != ids[1] || w.Ended[0].Outcome != "done" || !w.Ended[0].Whole {
		t.Fatalf("woken with %+v; want dispatch %s done with its answer", w.Ended, ids[1])
	}
	if len(w.Pending) != 2 || w.Pending[0] != ids[0] || w.Pending[1] != ids[2] {
		t.Fatalf("still running: %v, want %s and %s", w.Pending, ids[0], ids[2])
	}

	// The others finish: the wait on all returns every answer, in the
	// order asked.
	for _, g := range []string{gates[0], gates[2]} {
		if err := os.WriteFile(g, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err = s.client.WaitFor(ctx, ids, serve.WaitAll, 0)
	if err != nil || len(w.Ended) != 3 || len(w.Pending) != 0 {
		t.Fatalf("wait on all: %+v, %v", w, err)
	}
	for i, v := range w.Ended {
		if v.ID != ids[i] || v.Outcome != "done" {
			t.Errorf("ended[%d] = %s %s, want %s done", i, v.ID, v.Outcome, ids[i])
		}
	}
}

// Bad waits are refused naming the field; an unknown id is a 404 naming it.
func TestAWaitOnUnknownOrBadInputIsRefused(t *testing.T) {
	t.Parallel()
	s := startService(t, "", false)
	for _, c := range []struct {
		query, field string
		code         int
	}{
		{"", "ids", http.StatusBadRequest},
		{"ids=a&mode=some", "mode", http.StatusBadRequest},
		{"ids=a&wait=soon", "wait", http.StatusBadRequest},
		{"ids=nosuch", "ids", http.StatusNotFound},
	} {
		resp, err := http.Get(s.url + "/v1/wait?" + c.query)
		if err != nil {
			t.Fatal(err)
		}
		var e serve.APIError
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != c.code || e.Field != c.field {
			t.Errorf("%q: HTTP %d %+v, want %d naming %s", c.query, resp.StatusCode, e, c.code, c.field)
		}
	}
}
