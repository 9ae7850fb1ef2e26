package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// Quick agent timings for the send tests; the demo keeps its own.
var quickAgent = []string{"--echo", "--startup", "500ms", "--work", "500ms", "--stream", "300ms"}

// Quick engine settings for the send tests.
var quickWait = []string{"--poll", "250ms", "--idle-grace", "3s", "--timeout", "60s"}

func trickyPrompt() string {
	var lines []string
	for i := range 120 {
		lines = append(lines, strings.Repeat("·", i%40)+" line "+string(rune('a'+i%26)))
	}
	return "He said \"don't\" — $HOME ${PATH} $(echo pwned) `id` \\n \\\\ 'single' ; & | > < %s %d\n" +
		"unicode: héllo wörld ✓ 日本語 🚀 › • ◦ ⠴\n\tindented\n\n" + strings.Join(lines, "\n")
}

func TestSendCompletesThroughTheFileAndPromptsArriveIntact(t *testing.T) {
	t.Parallel()
	a := startAgent(t, quickAgent...)

	// A response left from an earlier dispatch must not be taken for the
	// new one: send archives it before dispatching.
	if err := responsefile.EnsureDir(a.workdir); err != nil {
		t.Fatal(err)
	}
	path, _ := handoff.ResponsePath(a.workdir, "analyst")
	if err := os.WriteFile(path, []byte("a stale answer\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// stdout carries the response and nothing else; the simulated agent
	// (--echo) answers with exactly what it received.
	prompt := trickyPrompt()
	stdout, stderr, code := cli(t, prompt, a.sendArgs(append(quickWait, "-")...)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	if stdout != prompt+"\n" {
		t.Fatalf("the response differs from the prompt the agent echoed\n got: %q\nwant: %q", stdout, prompt+"\n")
	}
	if !strings.Contains(stderr, "AwaitingStart → Working") || !strings.Contains(stderr, "Working → Done  (file_ready") {
		t.Fatalf("stderr does not narrate the transitions:\n%s", stderr)
	}
	if strings.Contains(stderr, "\x1b[") {
		t.Fatalf("piped stderr carries terminal escapes (the live line is for terminals only):\n%q", stderr)
	}

	// 10,000 characters, through --prompt-file and --json.
	long := strings.Repeat("0123456789", 1000)
	file := writeFile(t, "prompt.txt", long)
	stdout, stderr, code = cli(t, "", a.sendArgs(append(quickWait, "--prompt-file", file, "--json")...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rep := decodeReport(t, stdout)
	if rep.Outcome != "done" || rep.Source != "file" || rep.Content != long+"\n" {
		t.Fatalf("report: outcome %q source %q, content of %d bytes (want %d)", rep.Outcome, rep.Source, len(rep.Content), len(long)+1)
	}
	if n := len(rep.Transitions); n < 2 || rep.Transitions[n-1].To != string(handoff.Done) {
		t.Fatalf("transitions %+v", rep.Transitions)
	}
	// Each consumed response was archived (one run folder per send), and
	// the response file itself is gone from agent-responses.
	archived, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*-analyst.md"))
	if len(archived) != 2 {
		t.Fatalf("archived responses: %v, want one per send", archived)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the consumed response file is still in place: %v", err)
	}
	stale, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*-analyst.stale.md"))
	if len(stale) != 1 {
		t.Fatalf("the stale response was not archived: %v", stale)
	}
	if b, _ := os.ReadFile(stale[0]); string(b) != "a stale answer\n" {
		t.Fatalf("archived stale response %q", b)
	}
}

func TestStartupRaceIsReproducedAndHandled(t *testing.T) {
	t.Parallel()
	// The agent keeps the previous turn's finished screen ("completed") for
	// 2 s after Enter. Without the startup guard that stale screen would
	// start the idle grace at dispatch.
	// It works for 2 s: several polls see it busy even on a loaded machine.
	a := startAgent(t, "--previous-turn", "--startup", "2s", "--work", "1500ms", "--stream", "500ms")
	a.waitStatus(t, "the stale completed screen", func(st handoff.Status) bool { return st == handoff.StatusCompleted })
	rec := writeFile(t, "race.jsonl", "")
	stdout, stderr, code := cli(t, "", a.sendArgs("--poll", "250ms", "--idle-grace", "4s", "--timeout", "60s",
		"--prompt", "race me", "--json", "--record", rec)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rep := decodeReport(t, stdout)
	if rep.Outcome != "done" || rep.Source != "file" {
		t.Fatalf("outcome %q/%q, want done from the file", rep.Outcome, rep.Source)
	}
	first := rep.Transitions[0]
	// How much of the stale 2 s the wait sees depends on how long the send's
	// own checks took; that the stale screen started nothing does not.
	if first.From != "AwaitingStart" || first.To != "Working" {
		t.Fatalf("first transition %+v: want AwaitingStart → Working after the stale screen", first)
	}
	for _, tr := range rep.Transitions {
		if tr.Event == string(handoff.EventStartupTimeout) {
			t.Fatalf("the startup guard had to be force-released: %+v", rep.Transitions)
		}
	}
	// The race was real: the recording shows the stale quiet screen polled
	// again and again before the agent was seen working.
	tr, err := trace.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	stale := 0
	for _, l := range tr.Lines {
		if l.Status == nil || !l.Status.Quiet() {
			break
		}
		stale++
	}
	if stale < 2 {
		t.Fatalf("only %d quiet polls before the agent started: the race was not reproduced", stale)
	}
}

func TestRecordingReplaysToTheSameOutcome(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		sim  []string
		args []string
		code int
	}{
		"done from the file": {sim: quickAgent, code: exitOK},
		"no response file":   {sim: []string{"--scenario", "never-writes", "--startup", "300ms", "--work", "500ms", "--stream", "300ms"}, args: []string{"--idle-grace", "1500ms"}, code: exitNoFile},
		"fallback": {sim: []string{"--scenario", "never-writes", "--startup", "300ms", "--work", "500ms", "--stream", "300ms"},
			args: []string{"--idle-grace", "1500ms", "--strict=false"}, code: exitFallback},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, c.sim...)
			rec := writeFile(t, "session.jsonl", "")
			args := a.sendArgs(append(append([]string{"--poll", "250ms", "--idle-grace", "3s", "--timeout", "60s"}, c.args...),
				"--prompt", "record this session", "--json", "--record", rec)...)
			stdout, stderr, code := cli(t, "", args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, stderr)
			}
			live := decodeReport(t, stdout)
			replayed := replaysAsLive(t, rec, live)
			if lib := replayFile(t, rec); lib.Outcome != replayed.Outcome || lib.Content != replayed.Content {
				t.Fatalf("replay command %+v and trace.Replay %+v disagree", replayed, lib)
			}
			if name == "fallback" && !strings.Contains(live.Content, "on screen only") {
				t.Fatalf("fallback content %q is not the agent's on-screen answer", live.Content)
			}
		})
	}
}

func TestPaneKilledMidWaitIsATerminalErrorWithinOnePoll(t *testing.T) {
	t.Parallel()
	a := startAgent(t, "--startup", "200ms", "--work", "30s")
	rec := writeFile(t, "killed.jsonl", "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := cliCmd(ctx, a.sendArgs("--poll", "300ms", "--idle-grace", "5s", "--prompt", "work long", "--json", "--record", rec)...)
	var stdout, stderr testkit.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed once the wait has seen the agent working: a kill while send
	// still verifies its paste is another test's case (it has no poll).
	waitOutput(t, &stderr, "AwaitingStart → Working")
	if _, err := a.srv.Run(ctx, nil, "kill-pane", "-t", a.pane.Target()); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitTerminal {
		t.Fatalf("exit: %v, want %d\n%s", err, exitTerminal, stderr.String())
	}
	if !strings.Contains(stderr.String(), "is gone") {
		t.Fatalf("the error does not say the pane is gone:\n%s", stderr.String())
	}
	rep := decodeReport(t, stdout.String())
	if rep.Outcome != "failed" || rep.Error != "terminal_error" {
		t.Fatalf("report %+v", rep)
	}
	// Within one poll: the first poll after the kill saw the error and
	// ended the wait; every poll before it saw the agent alive.
	tr, err := trace.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	errorsSeen := 0
	for _, l := range tr.Lines {
		if l.Status != nil && *l.Status == handoff.StatusError {
			errorsSeen++
		}
	}
	last := tr.Lines[len(tr.Lines)-1]
	if errorsSeen != 1 || *last.Status != handoff.StatusError {
		t.Fatalf("%d error polls, last status %q: want exactly one, the last", errorsSeen, *last.Status)
	}
}

func TestSendToAMissingServerOrTargetIsAClearError(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	stdout, stderr, code := cli(t, "", "send", "--socket", "handoff-test-none-"+randomHex(4), "--target", "agent",
		"--role", "analyst", "--workdir", t.TempDir(), "--prompt", "hi", "--json")
	if code != exitTerminal || !strings.Contains(stderr, "tmux server not running") {
		t.Fatalf("missing server: exit %d\n%s", code, stderr)
	}
	if rep := decodeReport(t, stdout); rep.Outcome != "failed" || rep.Error != "terminal_error" {
		t.Fatalf("missing server: --json printed %+v", rep)
	}
	a := startAgent(t)
	_, stderr, code = cli(t, "", "send", "--socket", a.srv.Socket, "--target", "agent:7",
		"--role", "analyst", "--workdir", a.workdir, "--prompt", "hi")
	if code != exitTerminal || !strings.Contains(stderr, "tmux target not found") {
		t.Fatalf("missing target: exit %d\n%s", code, stderr)
	}
	// Nothing was dispatched, and the response folder is ready anyway.
	if _, err := os.Stat(handoff.ResponseDir(a.workdir)); err != nil {
		t.Fatalf("response dir: %v", err)
	}
}

func TestStatusAndWatchOnALivePane(t *testing.T) {
	t.Parallel()
	a := startAgent(t, "--startup", "300ms", "--work", "1s", "--stream", "300ms")
	stdout, stderr, code := cli(t, "", "status", "--socket", a.srv.Socket, "--target", a.pane.Target())
	if code != exitOK {
		t.Fatalf("status exit %d\n%s", code, stderr)
	}
	var c struct {
		Status  string         `json:"status"`
		Reason  string         `json:"reason"`
		Signals map[string]any `json:"signals"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || c.Status != "idle" || c.Reason == "" || c.Signals == nil {
		t.Fatalf("status output %q (%v): want the classifier's JSON saying idle", stdout, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	watch := cliCmd(ctx, "watch", "--socket", a.srv.Socket, "--target", a.pane.Target(), "--interval", "100ms")
	out, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	expect := func(status string) {
		t.Helper()
		for l := range lines {
			if strings.Fields(l)[1] == status {
				return
			}
		}
		t.Fatalf("watch ended before showing %s", status)
	}
	expect("idle")
	if err := a.pane.Send(ctx, "watch me"); err != nil {
		t.Fatal(err)
	}
	expect("processing")
	expect("completed")
	if err := watch.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := watch.Wait(); err != nil {
		t.Fatalf("watch after Ctrl-C: %v, want exit 0", err)
	}

	// A dead pane: status says so, as the classifier's JSON shape, exit 4.
	if _, err := a.srv.Run(ctx, nil, "set-option", "-g", "remain-on-exit", "on", ";", "send-keys", "-t", a.pane.Target(), "C-d"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		stdout, _, code = cli(t, "", "status", "--socket", a.srv.Socket, "--target", a.pane.Target())
		if code == exitTerminal || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := json.Unmarshal([]byte(stdout), &c); code != exitTerminal || err != nil || c.Status != "error" || !strings.Contains(c.Reason, "dead") {
		t.Fatalf("dead pane: exit %d, %q", code, stdout)
	}
}

var demoSocket = regexp.MustCompile(`private tmux server -L (\S+), simulated agent in pane \S+, workdir (\S+)`)

func TestDemoScenariosEndAsTheSpecPrescribes(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	cases := []struct {
		scenario string
		args     []string
		code     int
		outcome  string
		stdout   string
	}{
		{"normal", nil, exitOK, "outcome: done (file) — as the spec prescribes", "Simulated answer (scenario normal)"},
		{"slow-start", nil, exitOK, "outcome: done (file) — as the spec prescribes", "Simulated answer (scenario slow-start)"},
		{"never-writes", nil, exitNoFile, "outcome: failed (no_response_file) — as the spec prescribes", ""},
		{"never-writes", []string{"--strict=false"}, exitFallback, "outcome: done (fallback) — as the spec prescribes", "on screen only"},
		{"crash", nil, exitTerminal, "outcome: failed (terminal_error) — as the spec prescribes", ""},
	}
	for _, c := range cases {
		t.Run(c.scenario+strings.Join(c.args, ""), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := cli(t, "", append([]string{"demo", "--scenario", c.scenario}, c.args...)...)
			if code != c.code || !strings.Contains(stderr, c.outcome) {
				t.Fatalf("exit %d (want %d), stderr:\n%s", code, c.code, stderr)
			}
			if c.stdout == "" && stdout != "" || !strings.Contains(stdout, c.stdout) {
				t.Fatalf("stdout %q, want %q", stdout, c.stdout)
			}
			if c.scenario == "crash" && !strings.Contains(stderr, "pane is dead") {
				t.Fatalf("the crash is not reported as a dead pane:\n%s", stderr)
			}
			assertDemoCleanedUp(t, stderr)
		})
	}
}

func assertDemoCleanedUp(t *testing.T, stderr string) {
	t.Helper()
	m := demoSocket.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("the demo did not name its tmux server and workdir:\n%s", stderr)
	}
	if !serverGone(m[1]) {
		_ = exec.Command("tmux", "-L", m[1], "kill-server").Run()
		t.Fatalf("the demo left its tmux server -L %s running", m[1])
	}
	if _, err := os.Stat(m[2]); !errors.Is(err, os.ErrNotExist) {
		_ = os.RemoveAll(m[2])
		t.Fatalf("the demo left its workdir %s: %v", m[2], err)
	}
	if !strings.Contains(stderr, "demo: cleaned up") {
		t.Fatalf("no cleanup line:\n%s", stderr)
	}
}

func TestDemoCleansUpOnCtrlC(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := cliCmd(ctx, "demo", "--scenario", "slow-start")
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(errPipe)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		// Interrupt mid-wait: the agent is still on its stale screen.
		if strings.Contains(sc.Text(), "status completed") {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("exit after Ctrl-C: %v, want %d\n%s", err, exitFailure, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("no word of the interruption:\n%s", stderr.String())
	}
	assertDemoCleanedUp(t, stderr.String())
}

func TestSendDrawsALiveLineOnATerminalOnly(t *testing.T) {
	t.Parallel()
	a := startAgent(t, "--echo", "--startup", "2s", "--work", "1s", "--stream", "300ms")
	// Run send in a second pane: its stderr is a terminal there, its stdout
	// goes to a file.
	out := writeFile(t, "stdout.txt", "")
	done := out + ".exit"
	cmd := "env " + asCLI + "=1 " + handoff.ShellQuote(os.Args[0]) + " " + strings.Join(quoteAll(a.sendArgs(
		"--poll", "250ms", "--idle-grace", "4s", "--prompt", "live line please")), " ") +
		" > " + handoff.ShellQuote(out) + "; echo $? > " + handoff.ShellQuote(done) + "; exec sleep 600"
	id, err := a.srv.Run(context.Background(), nil, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "agent:", cmd)
	if err != nil {
		t.Fatal(err)
	}
	sawLive := false
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		screen, err := a.srv.Run(context.Background(), nil, "capture-pane", "-p", "-t", strings.TrimSpace(id))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(screen, "… ") && strings.Contains(screen, "startup guard holds") {
			sawLive = true
		}
		if _, err := os.Stat(done); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	code, _ := os.ReadFile(done)
	if strings.TrimSpace(string(code)) != "0" {
		t.Fatalf("send in a terminal exited %q", code)
	}
	if !sawLive {
		t.Fatal("no live progress line on the terminal while the startup guard held")
	}
	stdout, _ := os.ReadFile(out)
	if string(stdout) != "live line please\n" {
		t.Fatalf("stdout %q: want the response alone, no progress line", stdout)
	}
}

func quoteAll(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = handoff.ShellQuote(a)
	}
	return q
}

func TestDemoKeepKeepsTheWorkdirButStopsTheServer(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	_, stderr, code := cli(t, "", "demo", "--keep")
	m := demoSocket.FindStringSubmatch(stderr)
	if code != exitOK || m == nil {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	t.Cleanup(func() { os.RemoveAll(m[2]) })
	if !serverGone(m[1]) {
		_ = exec.Command("tmux", "-L", m[1], "kill-server").Run()
		t.Fatalf("--keep left the tmux server -L %s running", m[1])
	}
	screen, err := os.ReadFile(filepath.Join(m[2], "screen.txt"))
	if err != nil || !strings.Contains(string(screen), "Worked for") {
		t.Fatalf("kept screen.txt: %v\n%s", err, screen)
	}
	archived, _ := filepath.Glob(filepath.Join(m[2], ".tmp", "run-*", "001-analyst.md"))
	if len(archived) != 1 {
		t.Fatalf("kept archive: %v", archived)
	}
}

// The bug of issue 12: --record peeked at the response file with a plain
// read while the agent worked, so a symlink put the target's content in the
// trace, a FIFO hung the command and a huge file was read whole. Now the
// recorder reads as the engine does: the thing is refused, named, and left
// where it is.
func TestSendRecordNeverLeaksHangsOrMovesAnUnusableResponseFile(t *testing.T) {
	const secret = "TOP-SECRET-TOKEN-1234"
	cases := map[string]struct {
		plant func(t *testing.T, path string) // t.Error only: it runs off the test goroutine
		says  string
	}{
		"symlink": {func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "secret.txt")
			if err := os.WriteFile(target, []byte(secret), 0o600); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Error(err)
			}
		}, "symlink"},
		"fifo": {func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Error(err)
			}
		}, "not a regular file"},
		"huge": {func(t *testing.T, path string) {
			// Written beside it and renamed into place: the engine must never
			// see a half-written file, or this would test the poll's timing.
			big := strings.Repeat(secret+"\n", handoff.DefaultMaxResponseBytes/len(secret)+10)
			tmp := filepath.Join(filepath.Dir(path), ".planting")
			if err := os.WriteFile(tmp, []byte(big), 0o600); err != nil {
				t.Error(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Error(err)
			}
		}, "limit"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Works for 8 s and never writes: whatever the poll timing, the
			// thing planted while it works is seen present, then refused.
			a := startAgent(t, "--scenario", "never-writes", "--startup", "200ms", "--work", "8s", "--stream", "300ms")
			path, _ := handoff.ResponsePath(a.workdir, "analyst")
			rec := filepath.Join(t.TempDir(), "trace.jsonl")
			planted := make(chan os.FileMode, 1)
			go func() {
				// After send has cleared stale files and the agent works (no
				// t.Fatal off the test goroutine: a failure sends no mode).
				defer close(planted)
				for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
					if snap, err := a.pane.Observe(context.Background()); err == nil && !snap.Classification.Status.Quiet() {
						tc.plant(t, path)
						if fi, err := os.Lstat(path); err == nil {
							planted <- fi.Mode()
						}
						return
					}
				}
				t.Error("the agent was never seen working")
			}()
			_, stderr, code := cli(t, "", a.sendArgs("--poll", "200ms", "--idle-grace", "2s", "--record", rec, "--prompt", "do it")...)
			mode, ok := <-planted
			if !ok {
				t.Fatalf("nothing was planted (exit %d)\n%s", code, stderr)
			}
			if code == exitOK || code == exitFallback {
				t.Fatalf("exit %d: an unusable response file was taken for an answer\n%s", code, stderr)
			}
			if !strings.Contains(stderr, path) || !strings.Contains(stderr, tc.says) {
				t.Errorf("stderr does not name the file and say %q:\n%s", tc.says, stderr)
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode() != mode {
				t.Errorf("the response file was moved or changed (%v)", err)
			}
			b, err := os.ReadFile(rec)
			if err != nil {
				t.Fatalf("no trace written: %v", err)
			}
			if strings.Contains(string(b), secret) || len(b) > 64<<10 {
				t.Errorf("the trace carries the file's content (%d bytes)", len(b))
			}
			// The trace holds the refusal, so it replays to the live ending.
			out, rstderr, rcode := cli(t, "", "replay", rec)
			rep := decodeReport(t, out)
			if rcode != exitOK || rep.Outcome != "failed" || rep.Error != "unusable_response_file" {
				t.Errorf("replay: exit %d, outcome %q/%q, want failed/unusable_response_file\n%s\ntrace:\n%s", rcode, rep.Outcome, rep.Error, rstderr, b)
			}
		})
	}
}

func TestSendWithARoleOfYourOwn(t *testing.T) {
	t.Parallel()
	a := startAgent(t, quickAgent...)
	args := []string{"send", "--socket", a.srv.Socket, "--target", a.pane.Target(), "--role", "reviewer_2", "--workdir", a.workdir}
	stdout, stderr, code := cli(t, "Review the change.", append(append(args, quickWait...), "-")...)
	if code != exitOK || stdout != "Review the change.\n" {
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, `role "reviewer_2" is not one of the spec's; its response file is reviewer_2.md`) {
		t.Errorf("stderr does not say which file the role gets:\n%s", stderr)
	}
	archived, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "001-reviewer_2.md"))
	if len(archived) != 1 {
		t.Errorf("the answer was not archived as 001-reviewer_2.md")
	}
}

// Behaviours real agents need, on real tmux: a reminder for an agent that
// forgot its file, and a permission prompt reported or answered.
func TestSendRemindsAndAnswersOnRealTmux(t *testing.T) {
	quick := []string{"--startup", "300ms", "--work", "500ms", "--stream", "200ms"}
	cases := map[string]struct {
		sim, args []string
		code      int
		says      []string
		once      string
	}{
		"forgotten file without reminders (the spec)": {sim: []string{"--scenario", "forgets"},
			args: []string{"--idle-grace", "2s"}, code: exitNoFile},
		"forgotten file, reminded once": {sim: []string{"--scenario", "forgets"},
			args: []string{"--idle-grace", "2s", "--reminders", "1"}, code: exitOK,
			says: []string{"reminding the agent", "Working → Done"}},
		"permission prompt, nobody answers": {sim: []string{"--scenario", "asks"},
			args: []string{"--timeout", "6s"}, code: exitTimeout,
			once: "the agent waits for you"},
		"permission prompt answered automatically": {sim: []string{"--scenario", "asks"},
			args: []string{"--auto-answer", "y"}, code: exitOK,
			says: []string{"answering"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, append(tc.sim, quick...)...)
			args := append(a.sendArgs("--poll", "250ms", "--prompt", "do it"), tc.args...)
			_, stderr, code := cli(t, "", args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			for _, s := range tc.says {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not say %q:\n%s", s, stderr)
				}
			}
			if tc.once != "" && strings.Count(stderr, tc.once) != 1 {
				t.Errorf("stderr says %q %d times, want once:\n%s", tc.once, strings.Count(stderr, tc.once), stderr)
			}
		})
	}
}

// Settle: the agent is still starting (a turn runs) when send is called;
// the prompt waits for the ready prompt instead of being pasted into it.
// StartOnOutput: a turn too quick for any poll to see it working still ends
// a grace after the screen changed, not two.
func TestSendSettlesAndStartsOnOutputOnRealTmux(t *testing.T) {
	t.Run("settle", func(t *testing.T) {
		t.Parallel()
		// The first turn works until the test opens the gate, however
		// long send takes to start.
		gate := gateFile(t)
		a := startAgent(t, "--echo", "--startup", "200ms", "--work", "300ms", "--stream", "200ms", "--work-until", gate)
		// Busy the agent with a first turn, without waiting for it.
		if err := a.pane.Send(context.Background(), "warm up"); err != nil {
			t.Fatal(err)
		}
		a.waitStatus(t, "the first turn working", func(st handoff.Status) bool { return !st.Quiet() })
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		send := startSend(t, ctx, a, "analyst", "the real prompt", "--poll", "250ms", "--idle-grace", "3s", "--settle", "20s")
		waitOutput(t, &send.stderr, "waiting for a ready prompt before sending")
		openGate(t, gate)
		if code := <-send.done; code != exitOK || send.stdout.String() != "the real prompt\n" {
			t.Fatalf("exit %d stdout %q\n%s", code, send.stdout.String(), send.stderr.String())
		}
		if !strings.Contains(send.stderr.String(), "ready prompt: sending") {
			t.Errorf("send did not say it sends once the agent is ready:\n%s", send.stderr.String())
		}
	})
	t.Run("start on output", func(t *testing.T) {
		t.Parallel()
		// The turn starts 1.5 s after Enter and is over 0.2 s later: no
		// 2 s poll sees it working, and the first poll (right after the
		// send) sees the screen before it changed, even on a loaded machine
		// (a turn over before the first look would leave nothing to compare).
		a := startAgent(t, "--scenario", "never-writes", "--startup", "1500ms", "--work", "100ms", "--stream", "100ms")
		start := time.Now()
		stdout, stderr, code := cli(t, "", a.sendArgs("--poll", "2s", "--idle-grace", "4s", "--start-on-output", "--json", "--prompt", "quick")...)
		if code != exitNoFile {
			t.Fatalf("exit %d, want no response file\n%s", code, stderr)
		}
		rep := decodeReport(t, stdout)
		// Whichever poll saw what, the grace started with the agent's
		// output, so the wait ends within one grace plus two polls of
		// dispatch (the spec's guard alone would take two graces).
		// rep.At is measured from the dispatch; the wall clock also holds
		// the process's start, its look at the pane and the paste, which
		// took over 2 s on a loaded machine (-race, whole package): it
		// only guards against a wait that did not end.
		if rep.At >= 8 || time.Since(start) >= 13*time.Second {
			t.Fatalf("decided at %.1fs, want under 2 × grace (8 s)\n%s", rep.At, stderr)
		}
	})
}

// --log-format json: a supervisor reads stderr as JSON objects only, one per
// line, with each transition structured.
func TestSendLogFormatJSON(t *testing.T) {
	t.Parallel()
	a := startAgent(t, quickAgent...)
	stdout, stderr, code := cli(t, "", append(a.sendArgs(quickWait...), "--log-format", "json", "--prompt", "hello")...)
	if code != exitOK || stdout != "hello\n" {
		t.Fatalf("exit %d stdout %q\n%s", code, stdout, stderr)
	}
	var transitions []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("stderr line is not JSON: %q (%v)", line, err)
		}
		if obj["msg"] == "transition" {
			transitions = append(transitions, obj)
		}
	}
	if len(transitions) < 2 || transitions[len(transitions)-1]["to"] != "Done" || transitions[0]["from"] != "AwaitingStart" ||
		transitions[0]["role"] != "analyst" || transitions[0]["event"] == nil {
		t.Errorf("transitions %v", transitions)
	}
	if _, _, code := cli(t, "", append(a.sendArgs(), "--log-format", "xml", "--prompt", "x")...); code != exitUsage {
		t.Errorf("--log-format xml: exit %d, want usage", code)
	}
}

// watch without --target: a board of every pane, a JSON line per change
// when piped.
func TestWatchBoardListsEveryPane(t *testing.T) {
	t.Parallel()
	a := startAgent(t, quickAgent...)
	// Read the JSON lines as they come until the board has shown both panes
	// (the agent's idle), however slow the machine; then stop it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, out, notes := watchBoard(ctx, t, a)
	defer cmd.Wait()
	defer cancel()
	rows := map[string]map[string]any{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var r map[string]any
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", sc.Text(), err)
		}
		rows[r["pane"].(string)] = r
		if agent := rows[a.pane.Target()]; len(rows) == 2 && agent != nil && agent["status"] == "idle" {
			break
		}
	}
	agent := rows[a.pane.Target()]
	if len(rows) != 2 || agent == nil || agent["status"] != "idle" || agent["provider"] != "codex" || agent["target"] != "agent:0.0" {
		t.Errorf("board rows %v; want the agent's pane idle (codex) and the other window", rows)
	}
	// The board's provider is auto: stderr says which provider recognised
	// the agent's pane, and that none recognised the shell's.
	cancel()
	_ = cmd.Wait()
	if n := notes.String(); !strings.Contains(n, "--provider auto: codex recognises pane") || !strings.Contains(n, "no provider recognises the pane") {
		t.Errorf("stderr %q does not say which provider each pane was read with", n)
	}
}

// With the standard OTEL_* variables set, send exports its dispatch span to
// the collector over OTLP/HTTP; without them it exports nothing.
func TestSendExportsASpanWhenOpenTelemetryIsOn(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies [][]byte
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer col.Close()
	a := startAgent(t, quickAgent...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := cliCmd(ctx, append(a.sendArgs(quickWait...), "--prompt", "traced")...)
	cmd.Env = append(cmd.Env, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.URL)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("send: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	var all []byte
	for _, b := range bodies {
		all = append(all, b...)
	}
	for _, want := range []string{"handoff.dispatch", "handoff.role", "analyst", "handoff.outcome", "transition", "handoff-fsm"} {
		if !bytes.Contains(all, []byte(want)) {
			t.Errorf("the exported spans (%d requests) lack %q", len(bodies), want)
		}
	}
}

// status --provider auto on the simulated agent (Codex's screen): the pane
// is recognised by its composer, and stderr says which provider read it.
// (None or two matching: provider.TestDetectNoneOrTwoIsAnErrorNamingTheCandidates.)
func TestStatusProviderAutoSaysWhichProvider(t *testing.T) {
	t.Parallel()
	a := startAgent(t, "--startup", "300ms", "--work", "1s", "--stream", "300ms")
	stdout, stderr, code := cli(t, "", "status", "--provider", "auto", "--socket", a.srv.Socket, "--target", a.pane.Target())
	if code != exitOK || !strings.Contains(stdout, `"status":"idle"`) {
		t.Fatalf("status --provider auto: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "--provider auto: codex recognises pane") {
		t.Fatalf("stderr does not say which provider: %q", stderr)
	}
}

// The simulated agent's prompt log (what a soak reads to prove no prompt
// was pasted twice) holds each prompt it took, once, as the user wrote it.
func TestSimAgentLogsEachPromptItTakesOnce(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "prompts.log")
	a := startAgent(t, append(quickAgent, "--prompt-log", log)...)
	prompts := []string{"first task", "second task\nwith \"quotes\" and a second line"}
	for _, p := range prompts {
		if stdout, stderr, code := cli(t, p, a.sendArgs(append(quickWait, "-")...)...); code != exitOK || stdout != p+"\n" {
			t.Fatalf("send %q: exit %d, stdout %q\n%s", p, code, stdout, stderr)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var p string
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("a log line is not a JSON string: %q", line)
		}
		got = append(got, p)
	}
	if !slices.Equal(got, prompts) {
		t.Fatalf("the prompt log holds %q, want %q", got, prompts)
	}
}
