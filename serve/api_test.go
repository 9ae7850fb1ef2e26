package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/version"
)

// A dispatch through the API: 201 at once, then the agent's answer, the
// table's outcome and exit code, the transitions, the archive; the list
// and the event stream show it.
func TestADispatchThroughTheAPI(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, simtest.Quick())
	s := startService(t, "", true)
	ctx := t.Context()
	events, err := s.client.Events(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	v := s.submit(t, a.body(a.Panes[0], "analyst", "Summarise the design"))
	if v.ID == "" || v.Final {
		t.Fatalf("201 view %+v", v)
	}
	f := s.final(t, v.ID)
	if f.Outcome != "done" || f.Source != "file" || *f.Exit != 0 || content(f) != "Summarise the design\n" || f.State != "Done" {
		t.Fatalf("final view %+v (content %q)", f, content(f))
	}
	if len(f.Transitions) == 0 || f.Transitions[len(f.Transitions)-1].To != "Done" {
		t.Fatalf("transitions %+v", f.Transitions)
	}
	// The archive keeps the file as the agent wrote it (after the receipt
	// line the engine asked for).
	if b, err := os.ReadFile(f.ArchivedPath); err != nil || !strings.HasSuffix(string(b), "\nSummarise the design\n") {
		t.Fatalf("archived %s: %q %v", f.ArchivedPath, b, err)
	}
	list, err := s.client.List(ctx, map[string][]string{"role": {"analyst"}, "state": {"final"}})
	if err != nil || len(list) != 1 || list[0].ID != v.ID || list[0].Prompt != "Summarise the design" {
		t.Fatalf("list %+v %v", list, err)
	}
	if list, _ := s.client.List(ctx, map[string][]string{"role": {"tester"}}); len(list) != 0 {
		t.Fatalf("role filter: %+v", list)
	}
	// The engine in this process lists the same, and refuses the same
	// bad filter, naming it.
	local := s.Service
	if list, err := local.List(ctx, map[string][]string{"role": {"analyst"}, "state": {"final"}}); err != nil || len(list) != 1 || list[0].ID != v.ID {
		t.Fatalf("Local.List %+v %v", list, err)
	}
	if _, err := local.List(ctx, map[string][]string{"since": {"yesterday-ish"}}); err == nil || !strings.Contains(err.Error(), "since") {
		t.Fatalf("Local.List with a bad since: %v", err)
	}
	var types []string
	for e := range events {
		if e.ID != v.ID {
			continue
		}
		types = append(types, e.Type)
		if e.Type == "finished" {
			break
		}
	}
	got := strings.Join(types, " ")
	if !strings.HasPrefix(got, "accepted transition") || !strings.HasSuffix(got, "transition finished") {
		t.Fatalf("events for the dispatch: %s", got)
	}
}

// Bad input is a 400 naming the field, and nothing is kept or sent.
func TestBadRequestsNameTheField(t *testing.T) {
	t.Parallel()
	s := startService(t, "", false)
	good := `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi"}`
	for _, tc := range []struct{ field, body string }{
		{"target", `{"role":"analyst","workdir":"/tmp/w","prompt":"hi"}`},
		{"role", `{"target":"%1","role":"analsyt","workdir":"/tmp/w","prompt":"hi"}`},
		{"role", `{"target":"%1","role":"a/b","workdir":"/tmp/w","prompt":"hi"}`},
		{"workdir", `{"target":"%1","role":"analyst","workdir":"proj","prompt":"hi"}`},
		{"prompt", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"  "}`},
		{"prompt", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"a\u001b[201~!touch x"}`},
		{"provider", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","provider":"nope"}`},
		{"socket_path", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","socket":"a","socket_path":"/b"}`},
		{"colour", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","colour":"blue"}`},
		{"config.poll", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","config":{"poll":-1}}`},
		{"config.poll", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","config":{"poll":0}}`},
		{"config.pol", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","config":{"pol":1}}`},
		{"config", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","config":[1]}`},
		{"config.idle_grace", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"hi","config":{"idle_grace":"soon"}}`},
		{"body", `{"target":"%1","role":"analyst","workdir":"/tmp/w","prompt":"` + strings.Repeat("x", serve.MaxBody) + `"}`},
		{"body", good + good},
	} {
		resp, err := http.Post(s.url+"/v1/dispatches", "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		var e serve.APIError
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || e.Field != tc.field {
			b := tc.body
			if len(b) > 120 {
				b = b[:120] + "…"
			}
			t.Errorf("%s: HTTP %d %+v; want 400 naming %q", b, resp.StatusCode, e, tc.field)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(s.dir, "dispatches")); len(entries) != 0 {
		t.Fatalf("bad requests left state files: %v", entries)
	}
}

// A work folder that is a file, lies below one, or holds a file where the
// response folder goes (.tmp) is bad input naming workdir (a 400), not a failure
// of the service (it was a 500: "create response dir: mkdir …: not a
// directory"); with wait_slot too, which skips the early lock probe.
func TestAWorkdirThatIsAFileIsABadRequest(t *testing.T) {
	t.Parallel()
	s := startService(t, "", false)
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	blocked := filepath.Join(root, "blocked")
	for _, p := range []string{file, filepath.Dir(handoff.ResponseDir(blocked))} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		workdir, says string
		waitSlot      bool
	}{
		{file, "is a file", false},
		{file, "is a file", true},
		{filepath.Join(file, "sub"), "lies below a file", false},
		{blocked, "not a directory", false},
	} {
		body, _ := json.Marshal(map[string]any{"target": "%1", "role": "analyst", "workdir": tc.workdir, "prompt": "hi", "wait_slot": tc.waitSlot})
		resp, err := http.Post(s.url+"/v1/dispatches", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var e serve.APIError
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || e.Field != "workdir" || !strings.Contains(e.Error, tc.says) {
			t.Errorf("workdir %s (wait_slot %v): HTTP %d %+v; want 400 naming workdir, saying %q", tc.workdir, tc.waitSlot, resp.StatusCode, e, tc.says)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(s.dir, "dispatches")); len(entries) != 0 {
		t.Fatalf("bad requests left state files: %v", entries)
	}
}

// A busy slot is a 409 naming the holder: a dispatch of the service (its
// id) or another process's lock; with wait_slot the dispatch waits its
// turn instead.
func TestABusySlotIsAConflictNamingTheHolder(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 2, working(2*time.Second))
	s := startService(t, "", true)
	ctx := context.Background()
	first := s.submit(t, a.body(a.Panes[0], "programmer", "first"))
	_, err := s.client.Submit(ctx, a.body(a.Panes[1], "programmer", "second"))
	var se *serve.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusConflict || se.Holder == nil || se.Holder.ID != first.ID {
		t.Fatalf("second dispatch to a busy slot: %v (%+v)", err, se)
	}
	b := a.body(a.Panes[1], "programmer", "second, waiting")
	b.WaitSlot = true
	waiting := s.submit(t, b)
	if f := s.final(t, first.ID); content(f) != "first\n" {
		t.Fatalf("first: %+v %q", f, content(f))
	}
	if f := s.final(t, waiting.ID); content(f) != "second, waiting\n" {
		t.Fatalf("waiting: %+v %q", f, content(f))
	}

	// Another process's lock (here: this test holding it, as a local send
	// would): refused with its pid.
	path, _ := handoff.ResponsePath(a.Workdir, "tester")
	slot, err := responsefile.Lock(ctx, path, "tester", a.Workdir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer slot.Release()
	_, err = s.client.Submit(ctx, a.body(a.Panes[0], "tester", "test it"))
	if !errors.As(err, &se) || se.Code != http.StatusConflict || se.Holder == nil || se.Holder.PID != os.Getpid() {
		t.Fatalf("slot held by a process: %v (%+v)", err, se)
	}
}

// DELETE cancels a waiting dispatch; the response file the agent had
// written is archived, not deleted and not left for the next dispatch.
func TestCancelArchivesWhatTheAgentWrote(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, working(time.Minute))
	s := startService(t, "", true)
	ctx := context.Background()
	v := s.submit(t, a.body(a.Panes[0], "tester", "run the tests"))
	waitFor(t, "the agent working", func() bool {
		got, _ := s.client.Get(ctx, v.ID, 0)
		return got.State == "Working"
	})
	// The agent writes its file while it still works: not taken yet.
	path, _ := handoff.ResponsePath(a.Workdir, "tester")
	if err := os.WriteFile(path, []byte("half a report"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := s.client.Cancel(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c.State != serve.StateCancelled || c.Outcome != "cancelled" || *c.Exit != 1 || !c.Final {
		t.Fatalf("cancelled view %+v", c)
	}
	if b, err := os.ReadFile(c.ArchivedPath); err != nil || string(b) != "half a report" {
		t.Fatalf("archived %q: %q %v", c.ArchivedPath, b, err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the response file is still at its path: %v", err)
	}
	// Cancelling again changes nothing.
	if again, err := s.client.Cancel(ctx, v.ID); err != nil || again.ArchivedPath != c.ArchivedPath {
		t.Fatalf("second cancel: %+v %v", again, err)
	}
}

// GET ?wait= answers when the dispatch is over; an unknown id is a 404.
func TestWaitAndNotFound(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, simtest.Quick())
	s := startService(t, "", false)
	v := s.submit(t, a.body(a.Panes[0], "analyst", "wait for me"))
	resp, err := http.Get(s.url + "/v1/dispatches/" + v.ID + "?wait=60s")
	if err != nil {
		t.Fatal(err)
	}
	var got serve.View
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if !got.Final || content(got) != "wait for me\n" {
		t.Fatalf("?wait=60s answered %+v", got)
	}
	for _, u := range []string{"/v1/dispatches/nope", "/v1/dispatches/nope?wait=1s"} {
		resp, err := http.Get(s.url + u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: HTTP %d", u, resp.StatusCode)
		}
	}
	// Which build answers: the same identity `handoff-fsm version --json` prints.
	resp, err = http.Get(s.url + "/v1/version")
	if err != nil {
		t.Fatal(err)
	}
	var build version.Info
	json.NewDecoder(resp.Body).Decode(&build)
	resp.Body.Close()
	if build != version.Get() || build.Module != version.Module || build.Go == "" {
		t.Errorf("/v1/version answered %+v, want %+v", build, version.Get())
	}
	resp, _ = http.Get(s.url + "/v1/dispatches?since=yesterday")
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad since: HTTP %d", resp.StatusCode)
	}
}

// The event stream as server-sent events.
func TestEventsAsServerSentEvents(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, simtest.Quick())
	s := startService(t, "", true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/v1/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	v := s.submit(t, a.body(a.Panes[0], "analyst", "stream it"))
	var buf bytes.Buffer
	chunk := make([]byte, 4096)
	for !strings.Contains(buf.String(), "event: finished\n") {
		n, err := resp.Body.Read(chunk)
		buf.Write(chunk[:n])
		if err != nil {
			t.Fatalf("stream ended: %v\n%s", err, buf.String())
		}
	}
	if !strings.Contains(buf.String(), "event: accepted\n") || !strings.Contains(buf.String(), `"id":"`+v.ID+`"`) {
		t.Fatalf("stream:\n%s", buf.String())
	}
}

// waitFor: testkit.WaitFor.
func waitFor(t testing.TB, what string, cond func() bool) { t.Helper(); testkit.WaitFor(t, what, cond) }

// A client that follows its dispatch after submitting it (from the
// submission's AcceptedSeq) misses none of its events and gets no other's;
// an after= that is no number is a 400 naming it.
func TestFollowingADispatchFromItsAcceptance(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 2, simtest.Quick())
	s := startService(t, "", true)
	ctx := t.Context()
	v := s.submit(t, a.body(a.Panes[0], "analyst", "first"))
	other := s.submit(t, a.body(a.Panes[1], "tester", "second"))
	if v.AcceptedSeq == 0 {
		t.Fatalf("the submission's view has no accepted_seq: %+v", v)
	}
	// Subscribed only once it is over: everything after acceptance is kept.
	f := s.final(t, v.ID)
	s.final(t, other.ID)
	events, err := s.client.Events(ctx, v.ID, v.AcceptedSeq)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for e := range events {
		if e.ID != v.ID {
			t.Fatalf("event %+v of another dispatch", e)
		}
		types = append(types, e.Type)
		if e.Type == "finished" {
			break
		}
	}
	transitions := 0
	for _, ty := range types {
		if ty == "transition" {
			transitions++
		}
	}
	if types[len(types)-1] != "finished" || transitions != len(f.Transitions) {
		t.Fatalf("events %v, want the %d transitions of the final view and finished", types, len(f.Transitions))
	}
	resp, err := http.Get(s.url + "/v1/events?after=soon")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e serve.APIError
	if json.NewDecoder(resp.Body).Decode(&e); resp.StatusCode != http.StatusBadRequest || e.Field != "after" {
		t.Fatalf("after=soon: %d %+v", resp.StatusCode, e)
	}
}
