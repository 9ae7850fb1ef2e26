package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Codex shows its busy UI this long after Enter: measured on the raw pane
// with the project's classifier, polling every 20 ms.
func TestRealCodexEnterToProcessing(t *testing.T) {
	parallel(t)
	r := newRig(t, realcodex.Options{})
	r.model.Script(fakemodel.Answer("Hello.").After(2 * time.Second))
	if err := r.cli.Paste(context.Background(), "Say hello"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cl := codex.Provider()
	enter := time.Now()
	r.keys("Enter")
	var seen time.Duration
	for time.Since(enter) < 5*time.Second {
		text, title, err := r.cli.Capture(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c := cl.Classify(text, title); c.Status == handoff.StatusProcessing {
			seen = time.Since(enter)
			t.Logf("first processing: %s (%s)", c.Reason, title)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if seen == 0 {
		t.Fatal("Codex never looked busy within 5 s of Enter")
	}
	metric(t, "enter_to_first_processing", seen)
	r.waitScreen(10*time.Second, "the answer", func(p, title string) bool { return finished(p, title, "Hello.") })
}

// Long streaming shows no Working line at all; only the pane title spins.
// The file is written first, the final message streams for seconds after
// it: Done must wait for the turn's end, and the next dispatch must work.
func TestRealCodexLongStreamingIsWaitedOut(t *testing.T) {
	parallel(t)
	r := newRig(t, realcodex.Options{})
	const streaming = 4 * time.Second
	r.model.Script(
		fakemodel.WriteResponse(answer).In(r.workdir),
		fakemodel.Streamed(strings.Repeat("A long closing message, streamed in small pieces. ", 6), 40, streaming))

	d := r.send("tester", "Test everything.", e2eConfig(true), nil)
	if d.err != nil {
		t.Fatalf("dispatch failed: %v", d.err)
	}
	if d.res.Content != answer+"\n" {
		t.Fatalf("got %q", d.res.Content)
	}
	if wait := d.doneAt().Sub(d.fileAt); wait < streaming-500*time.Millisecond {
		t.Fatalf("done %v after the file appeared, while the final message still streamed (%v)", wait, streaming)
	}
	metric(t, "file_written_to_done_with_4s_streaming_after_it", d.doneAt().Sub(d.fileAt))

	// The pane is really idle now: a second dispatch gets its own answer.
	r.model.Script(fakemodel.WriteResponse("second answer").In(r.workdir), fakemodel.Answer("Written."))
	d2 := r.send("tester", "Test again.", e2eConfig(true), nil)
	if d2.err != nil || d2.res.Content != "second answer\n" {
		t.Fatalf("second dispatch: %q, %v", d2.res.Content, d2.err)
	}
	if r.model.Pending() != 0 {
		t.Fatalf("%d scripted replies unused", r.model.Pending())
	}
}

// buildCommand returns cmd/handoff-fsm, built once for the package's
// tests (which only run it) into buildDir; TestMain removes it.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var buildDir string

var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "handoff-e2e-bin-")
	if err != nil {
		return "", err
	}
	buildDir = dir
	bin := filepath.Join(dir, "handoff-fsm")
	if err := testkit.GoBuild(bin, "../cmd/handoff-fsm"); err != nil {
		return "", err
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	flag.Parse()
	// A whole run builds the command from the start, beside the first
	// tests: most tests need it, and built by the first of them it held
	// the package for 83 s of a cold run (every other test waited).
	early := flag.Lookup("test.run").Value.String() == ""
	if early {
		go buildOnce() // the tests that need it report its error
	}
	code := m.Run()
	if early {
		_, _ = buildOnce() // a build still under way ends before its folder goes
	}
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// The shipped command, end to end: `handoff-fsm send` prints exactly what
// Codex wrote, and exits with the documented codes.
func TestRealCodexSendCommand(t *testing.T) {
	parallel(t)
	realcodex.CLI.Require(t) // skip before building when Codex is missing
	bin := buildCommand(t)
	t.Run("file", func(t *testing.T) {
		r := newRig(t, realcodex.Options{})
		// A slow first byte keeps Codex busy for several polls: the path through
		// Working is then seen whatever the machine's timing.
		r.model.Script(fakemodel.WriteResponse(answer).In(r.workdir).After(time.Second), fakemodel.Answer("I wrote the response file."))
		trace := filepath.Join(t.TempDir(), "session.jsonl")
		stdout, stderr, code := r.runSend(bin, "--idle-grace", "3s", "--timeout", "60s", "--role", "analyst", "--prompt", "Analyse the project.", "--record", trace)
		if code != 0 || stdout != answer+"\n" {
			t.Fatalf("exit %d, stdout %q; want 0 and %q", code, stdout, answer+"\n")
		}
		// Which states the dispatch went through depends on how fast Codex
		// draws; that it ended in Done does not.
		if !strings.Contains(stderr, string(handoff.Done)) {
			t.Errorf("stderr does not show the transition to %s", handoff.Done)
		}
		// The recorded real session replays offline to the same outcome.
		out, err := exec.Command(bin, "replay", trace).Output()
		if err != nil {
			rec, _ := os.ReadFile(trace)
			t.Fatalf("replay: %v\n%s\ntrace:\n%s", err, out, rec)
		}
		var got struct {
			Outcome, Source, Content string
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("replay output %q: %v", out, err)
		}
		if got.Outcome != "done" || got.Source != "file" || got.Content != answer+"\n" {
			rec, _ := os.ReadFile(trace)
			t.Fatalf("replay gave %+v, want done from the file with the same content\ntrace:\n%s", got, rec)
		}
	})
	t.Run("server-error", func(t *testing.T) {
		r := newRig(t, realcodex.Options{})
		r.model.Script(fakemodel.HTTPError(500, "server_error", "fake internal error"))
		stdout, stderr, code := r.runSend(bin, "--idle-grace", "3s", "--timeout", "60s", "--role", "analyst", "--prompt", "Analyse the project.")
		if code != 4 || stdout != "" || !strings.Contains(stderr, "terminal error") {
			t.Fatalf("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
		}
	})
}

// Codex's notify program (handoff-fsm hook) reports the turn complete,
// and the wait ends on it (see hookEndsTheWait).
func TestRealCodexNotifyHookEndsTheWait(t *testing.T) {
	parallel(t)
	realcodex.CLI.Require(t)
	cli := buildCommand(t)
	r := newRig(t, realcodex.Options{Notify: []string{cli, "hook"}})
	r.model.Script(fakemodel.WriteResponse(answer).In(r.workdir), fakemodel.Answer("I wrote the response file."))

	path := testkit.ResponseFile(t, r.workdir, "analyst")
	w, err := responsefile.Watch(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, polls := r.waitOnHook(fsm.Wakeups{Turns: w.Turns()}, "Analyse the project.", answer+"\n")
	marker, err := os.ReadFile(responsefile.TurnMarker(path))
	if err != nil || !strings.Contains(string(marker), `"agent-turn-complete"`) {
		t.Fatalf("the hook's marker holds %q (%v)", marker, err)
	}
	t.Logf("done %v after dispatch, on the notify hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
}
