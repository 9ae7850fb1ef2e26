package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

func validState() *dispatchState {
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	return &dispatchState{Version: stateVersion, Target: "%3", Socket: "agents", Provider: "codex", History: 200,
		TmuxTimeout: "5s", Role: "analyst", Workdir: "/work/proj", Config: stateConfigOf(handoff.DefaultConfig()),
		Wait: &fsm.Checkpoint{
			Core: fsm.Snapshot{State: handoff.Working, DispatchedAt: t0, LastStatus: "processing", LastAt: t0.Add(4 * time.Second), Polls: 3},
			Journal: []fsm.Entry{{At: t0.Add(2 * time.Second), From: handoff.AwaitingStart, To: handoff.Working,
				Event: handoff.EventActive, Status: "processing"}},
			ArchiveDir: "/work/proj/.tmp/run-20260304T050607.000Z", ArchiveSeq: 1,
			Pane: &handoff.PaneIdentity{Server: "/tmp/tmux-1000/agents", ServerPID: 100, ServerStarted: "2026-03-04T05:00:00Z",
				Pane: "%3", PID: 101, Started: "59963 ticks after boot"},
		}}
}

func stateJSON(t testing.TB, st *dispatchState) string {
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStateFileRoundTripsAndIsWrittenAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	st := validState()
	if err := st.write(path); err != nil {
		t.Fatal(err)
	}
	got, err := readState(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stateJSON(t, got), stateJSON(t, st)) {
		t.Fatalf("round trip:\n%s\n%s", stateJSON(t, got), stateJSON(t, st))
	}
	// Rewrites leave no temporary files behind.
	for range 5 {
		if err := st.write(path); err != nil {
			t.Fatal(err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("folder holds %v", entries)
	}
	// A finished one.
	st.Finished = &finishedState{Exit: 5, Error: "analyst: no response file after 1m0s",
		Report: trace.Report{Outcome: "failed", Error: "no_response_file", Transitions: []trace.Transition{}}}
	if _, err := parseState([]byte(stateJSON(t, st))); err != nil {
		t.Fatal(err)
	}
}

// A malformed state file gets a message naming the field.
func TestMalformedStateFilesNameTheField(t *testing.T) {
	for _, tc := range []struct {
		field  string
		mutate func(*dispatchState)
		raw    string // used instead when set
	}{
		{"version", func(s *dispatchState) { s.Version = 9 }, ""},
		{"target", func(s *dispatchState) { s.Target = "" }, ""},
		{"socket_path", func(s *dispatchState) { s.SocketPath = "/tmp/x" }, ""},
		{"provider", func(s *dispatchState) { s.Provider = "nope" }, ""},
		{"tmux_timeout", func(s *dispatchState) { s.TmuxTimeout = "soon" }, ""},
		{"workdir", func(s *dispatchState) { s.Workdir = "rel/dir" }, ""},
		{"role", func(s *dispatchState) { s.Role = "../x" }, ""},
		{"config.poll", func(s *dispatchState) { s.Config.Poll = "2" }, ""},
		{"config.idle_grace", func(s *dispatchState) { s.Config.IdleGrace = "" }, ""},
		{"config", func(s *dispatchState) { s.Config.MaxPollFailures = 0 }, ""},
		{"wait", func(s *dispatchState) { s.Wait = nil }, ""},
		{"wait.archive_dir", func(s *dispatchState) { s.Wait.ArchiveDir = "" }, ""},
		{"wait.archive_seq", func(s *dispatchState) { s.Wait.ArchiveSeq = -1 }, ""},
		{"wait.core", func(s *dispatchState) { s.Wait.Core.State = "Sleeping" }, ""},
		{"wait.core", func(s *dispatchState) { s.Wait.Core.DispatchedAt = time.Time{} }, ""},
		{"wait.core.state", func(s *dispatchState) {
			s.Wait.Core.State, s.Wait.Core.End = handoff.Done, handoff.EventFileReady
		}, ""},
		{"wait.pane.server", func(s *dispatchState) { s.Wait.Pane.Server = "" }, ""},
		{"wait.pane.pid", func(s *dispatchState) { s.Wait.Pane.PID = 0 }, ""},
		{"wait.pane.started", func(s *dispatchState) { s.Wait.Pane.Started = "" }, ""},
		{"wait.pane.server_pid", nil, `{"version":1,"wait":{"pane":{"server_pid":"x"}}}`},
		{"finished.exit", func(s *dispatchState) { s.Finished = &finishedState{Exit: 42, Report: trace.Report{Outcome: "done"}} }, ""},
		{"finished.report.outcome", func(s *dispatchState) { s.Finished = &finishedState{Exit: 0, Report: trace.Report{Outcome: "meh"}} }, ""},
		{"finished.report.error", func(s *dispatchState) {
			s.Finished = &finishedState{Exit: 4, Report: trace.Report{Outcome: "failed", Error: "gremlins"}}
		}, ""},
		{"history", nil, `{"version":1,"history":"lots"}`},
		{"wait.core.polls", nil, `{"version":1,"wait":{"core":{"polls":"three"}}}`},
		{"colour", nil, `{"version":1,"colour":"blue"}`},
	} {
		raw := tc.raw
		if raw == "" {
			st := validState()
			tc.mutate(st)
			raw = stateJSON(t, st)
		}
		_, err := parseState([]byte(raw))
		if !errors.Is(err, errBadState) || !strings.Contains(err.Error(), `field "`+tc.field+`"`) {
			t.Errorf("%s: %v; want an error naming field %q", raw, err, tc.field)
		}
	}
	for _, raw := range []string{"", "{", `{"version":1}{"version":1}`, "[]"} {
		if _, err := parseState([]byte(raw)); !errors.Is(err, errBadState) {
			t.Errorf("%q: %v", raw, err)
		}
	}
}

// The state file parser never panics, and what it accepts it writes back
// to the same thing.
func FuzzParseState(f *testing.F) {
	st := validState()
	f.Add([]byte(stateJSON(f, st)))
	st.Finished = &finishedState{Exit: 0, Report: trace.Report{Outcome: "done", Source: "file", Content: "hi"}}
	f.Add([]byte(stateJSON(f, st)))
	f.Add([]byte(`{"version":1,"wait":{"core":{"state":"IdleGrace"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseState(b)
		if err != nil {
			if !errors.Is(err, errBadState) {
				t.Fatalf("error not wrapping errBadState: %v", err)
			}
			return
		}
		again, err := parseState([]byte(stateJSON(t, st)))
		if err != nil {
			t.Fatalf("accepted %q but not its rewrite: %v", b, err)
		}
		if stateJSON(t, again) != stateJSON(t, st) {
			t.Fatalf("rewrite differs:\n%s\n%s", stateJSON(t, again), stateJSON(t, st))
		}
	})
}

// An unusable --state path stops send before anything is sent.
func TestSendRefusesAnUnusableStatePath(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Join(dir, "missing", "s.json")} {
		_, stderr, code := cli(t, "", "send", "--socket", "hfrel-nowhere", "--target", "%0", "--role", "analyst",
			"--workdir", dir, "--state", p, "--prompt", "hi")
		if code != exitFailure || !strings.Contains(stderr, "--state") {
			t.Errorf("--state %s: exit %d\n%s", p, code, stderr)
		}
	}
}
