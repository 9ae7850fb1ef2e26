package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

func TestSendHelpDocumentsTheExitCodes(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"send", "-h"}, nil, &bytes.Buffer{}, &stderr); code != exitOK {
		t.Fatalf("send -h: exit %d", code)
	}
	for _, want := range []string{"0  done: the response came from the response file", "3  done: the response is the terminal's last output",
		"4  terminal error", "5  no response file", "6  timeout", "2  usage error", "-record", "-json", "-strict", "analyst"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("send -h does not say %q:\n%s", want, stderr.String())
		}
	}
}

func TestSendUsageErrors(t *testing.T) {
	cases := map[string][]string{
		"no target":        {"--role", "analyst", "--prompt", "hi"},
		"no role":          {"--target", "x", "--prompt", "hi"},
		"misspelt role":    {"--target", "x", "--role", "analsyt", "--prompt", "hi"},
		"bad role name":    {"--target", "x", "--role", "../boss", "--prompt", "hi"},
		"no prompt":        {"--target", "x", "--role", "analyst"},
		"two prompts":      {"--target", "x", "--role", "analyst", "--prompt", "hi", "-"},
		"empty prompt":     {"--target", "x", "--role", "analyst", "--prompt", "  \n"},
		"escape in prompt": {"--target", "x", "--role", "analyst", "--prompt", "hi\x1b[201~!touch x"},
		"stray argument":   {"--target", "x", "--role", "analyst", "--prompt", "hi", "extra"},
		"bad duration":     {"--target", "x", "--role", "analyst", "--prompt", "hi", "--poll", "soon"},
		"zero poll":        {"--target", "x", "--role", "analyst", "--prompt", "hi", "--poll", "0"},
		"missing file":     {"--target", "x", "--role", "analyst", "--prompt-file", "/nonexistent/prompt"},
		"socket and path":  {"--target", "x", "--role", "analyst", "--prompt", "hi", "--socket", "a", "--socket-path", "/b"},
		"unknown provider": {"--target", "x", "--role", "analyst", "--prompt", "hi", "--provider", "clippy"},
		"unknown flag":     {"--target", "x", "--role", "analyst", "--prompt", "hi", "--fast"},
		"negative timeout": {"--target", "x", "--role", "analyst", "--prompt", "hi", "--timeout", "-3"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"send"}, args...), strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d (usage)\n%s", code, exitUsage, stderr.String())
			}
			if stdout.Len() != 0 || strings.TrimSpace(stderr.String()) == "" {
				t.Fatalf("stdout %q, stderr %q: want the error on stderr only", stdout.String(), stderr.String())
			}
		})
	}
}

func TestReadPromptTakesExactlyOneSource(t *testing.T) {
	got, err := readPrompt([]string{"-"}, "", "", strings.NewReader("from stdin\n"))
	if err != nil || got != "from stdin\n" {
		t.Fatalf("%q %v", got, err)
	}
	if got, err := readPrompt(nil, "inline", "", nil); err != nil || got != "inline" {
		t.Fatalf("%q %v", got, err)
	}
}

func poll(n int, elapsed time.Duration, st handoff.Status, state handoff.State) fsm.Poll {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return fsm.Poll{Observation: fsm.Observation{At: start.Add(elapsed), Status: st, File: fsm.FileAbsent}, Ready: fsm.Ready{State: state}, Elapsed: elapsed, N: n}
}

func TestProgressDrawsALiveLineOnlyOnATerminal(t *testing.T) {
	var piped bytes.Buffer
	p := &progress{w: &piped, live: false, now: time.Now}
	p.poll(poll(1, 0, handoff.StatusCompleted, handoff.AwaitingStart))
	p.transition(fsm.Entry{At: time.Date(2026, 1, 1, 0, 0, 2, 0, time.UTC), From: handoff.AwaitingStart, To: handoff.Working,
		Event: handoff.EventActive, Status: handoff.StatusProcessing})
	p.stop()
	if strings.Contains(piped.String(), "\x1b") || strings.Contains(piped.String(), "\r") {
		t.Fatalf("piped output has terminal control sequences: %q", piped.String())
	}
	if piped.String() != "handoff-fsm:   2.00s  AwaitingStart → Working  (active; status processing)\n" {
		t.Fatalf("piped output %q: want one line per transition", piped.String())
	}

	var tty bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)
	live := &progress{w: &tty, live: true, now: func() time.Time { return now }}
	pl := poll(3, time.Second, handoff.StatusIdle, handoff.IdleGrace)
	pl.WindowLeft = 5 * time.Second
	live.poll(pl)
	if got := tty.String(); got != "… 1.0s  status idle  IdleGrace: idle grace 5.0s left  (poll 3)" {
		t.Fatalf("live line %q", got)
	}
	tty.Reset()
	now = now.Add(1500 * time.Millisecond)
	live.Write([]byte("a log line\n"))
	if got := tty.String(); got != "\r\x1b[Ka log line\n… 2.5s  status idle  IdleGrace: idle grace 3.5s left  (poll 3)" {
		t.Fatalf("a write does not clear and redraw the live line: %q", got)
	}
	tty.Reset()
	live.stop()
	if tty.String() != "\r\x1b[K" {
		t.Fatalf("stop left the live line: %q", tty.String())
	}
}

// A blank look (a live pane that showed nothing) has no status: the live
// line says so instead of an empty status.
func TestProgressShowsABlankLook(t *testing.T) {
	var tty bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)
	live := &progress{w: &tty, live: true, now: func() time.Time { return now }}
	pl := poll(2, time.Second, "", handoff.AwaitingStart)
	pl.Blank = true
	live.poll(pl)
	if got := tty.String(); !strings.HasPrefix(got, "… 1.0s  status blank  ") {
		t.Fatalf("live line %q", got)
	}
}

func TestFinishMapsOutcomesToExitCodes(t *testing.T) {
	cases := []struct {
		res  fsm.Result
		err  error
		code int
	}{
		{fsm.Result{Content: "x", Source: fsm.SourceFile}, nil, exitOK},
		{fsm.Result{Content: "x", Source: fsm.SourceFallback}, nil, exitFallback},
		{fsm.Result{}, &handoff.WaitError{Kind: handoff.ErrTerminalError}, exitTerminal},
		{fsm.Result{}, &handoff.WaitError{Kind: handoff.ErrNoResponseFile}, exitNoFile},
		{fsm.Result{}, &handoff.WaitError{Kind: handoff.ErrTimeout}, exitTimeout},
		{fsm.Result{}, &handoff.WaitError{Kind: handoff.ErrNeedsUser}, exitNeedsUser},
		{fsm.Result{}, &handoff.WaitError{Kind: handoff.ErrResponseFile}, exitFailure},
		{fsm.Result{}, &handoff.WaitError{Kind: handoff.ErrPromptNotTaken}, exitFailure},
		{fsm.Result{}, &fsm.BusyError{Role: "analyst", Status: handoff.StatusProcessing}, exitBusy},
		{fsm.Result{}, context.Canceled, exitFailure},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if got := finish("send", nil, c.res, c.err, false, &stdout, &stderr); got != c.code {
			t.Errorf("%v/%v: exit %d, want %d", c.res.Source, c.err, got, c.code)
		}
		if c.err == nil && stdout.String() != "x\n" {
			t.Errorf("stdout %q: want the response alone", stdout.String())
		}
		if c.err != nil && stdout.Len() != 0 {
			t.Errorf("stdout %q on failure", stdout.String())
		}
	}
}

func TestExitCodesAreTheTablesOutcomes(t *testing.T) {
	want := map[string]int{"file": exitOK, "fallback": exitFallback, "terminal_error": exitTerminal,
		"no_response_file": exitNoFile, "timeout": exitTimeout, "needs_user": exitNeedsUser,
		"unusable_response_file": exitFailure, "agent_busy": exitBusy, "prompt_not_taken": exitFailure}
	outcomes := handoff.Outcomes()
	if len(outcomes) != len(want) {
		t.Fatalf("the table has %d outcomes, the command names %d", len(outcomes), len(want))
	}
	for _, o := range outcomes {
		if code, ok := want[o.Name]; !ok || code != o.Exit {
			t.Errorf("outcome %s exits %d in the table, %d (known: %v) in the command", o.Name, o.Exit, code, ok)
		}
		// An unusable response file kept exit 1, which it had before it was
		// a row of the table; a prompt the agent did not take whole and
		// once exits 1 as the paste that did not arrive whole does
		// (handoff.ErrPasteIncomplete, before Enter). No other ending may
		// share it.
		if (o.Exit == exitFailure && o.Err != handoff.ErrResponseFile && o.Err != handoff.ErrPromptNotTaken) || o.Exit == exitUsage {
			t.Errorf("outcome %s takes exit %d, which the command keeps for other errors", o.Name, o.Exit)
		}
	}
}

func TestHookMarksTheCodexTurnOfTheResponseFileInTheInput(t *testing.T) {
	work := t.TempDir()
	path := testkit.ResponseFile(t, work, "tester")
	prompt := handoff.WithInstruction("Run the tests.", path, "TESTRECEIPTAAAAAAAAA")
	payload, _ := json.Marshal(map[string]any{"type": "agent-turn-complete", "turn-id": "t1",
		"input-messages": []string{prompt}, "last-assistant-message": "done"})
	var stderr bytes.Buffer
	if code := runHook(context.Background(), []string{string(payload)}, strings.NewReader(""), io.Discard, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(responsefile.TurnMarker(path))
	if err != nil || string(b) != string(payload) {
		t.Fatalf("marker holds %q (%v)", b, err)
	}
	// A Codex turn without an instruction is ignored and never fails
	// Codex's turn; anything else without --dir is a clear error.
	if code := runHook(context.Background(), []string{`{"type":"agent-turn-complete","input-messages":["hi"]}`}, strings.NewReader(""), io.Discard, io.Discard); code != exitOK {
		t.Errorf("a Codex turn handoff-fsm did not dispatch: exit %d", code)
	}
	stderr.Reset()
	if code := runHook(context.Background(), []string{`{"hook_event_name":"Stop"}`}, strings.NewReader(""), io.Discard, &stderr); code != exitFailure || !strings.Contains(stderr.String(), "--dir") {
		t.Errorf("a Claude hook without --dir: exit %d, %s", code, stderr.String())
	}
}
