package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// e2eConfig keeps each real-Codex scenario short: the fake model answers in
// milliseconds, so a 250 ms poll and a 3 s grace are plenty.
func e2eConfig(strict bool) handoff.Config {
	cfg := handoff.DefaultConfig()
	cfg.Poll = 250 * time.Millisecond
	cfg.IdleGrace = 3 * time.Second
	cfg.ResponseTimeout = 60 * time.Second
	cfg.Fallback = !strict
	return cfg
}

// dispatch is one SendAndWait through the project's own stack (tmuxdriver
// pane with its default Codex classifier, fsm engine) with what it observed.
type dispatch struct {
	res     fsm.Result
	err     error
	polls   []fsm.Poll
	sentAt  time.Time // Send returned: the prompt was pasted and Enter pressed and seen
	sendDur time.Duration
	// fileAt is when the response file first existed (polled every 10 ms).
	fileAt time.Time
}

// statuses lists each poll's status, in order.
func (d *dispatch) statuses() []handoff.Status {
	var out []handoff.Status
	for _, p := range d.polls {
		out = append(out, p.Status)
	}
	return out
}

// path lists the journal as From→To hops: AwaitingStart, Working, Done.
func (d *dispatch) path() []handoff.State {
	if len(d.res.Journal) == 0 {
		return nil
	}
	out := []handoff.State{d.res.Journal[0].From}
	for _, e := range d.res.Journal {
		out = append(out, e.To)
	}
	return out
}

// doneAt is when the deciding transition happened.
func (d *dispatch) doneAt() time.Time {
	if n := len(d.res.Journal); n > 0 {
		return d.res.Journal[n-1].At
	}
	return time.Time{}
}

// lastQuietRunStart is when the last run of consecutive quiet polls began.
func (d *dispatch) lastQuietRunStart() time.Time {
	var start time.Time
	for _, p := range d.polls {
		switch {
		case !p.Status.Quiet():
			start = time.Time{}
		case start.IsZero():
			start = p.At
		}
	}
	return start
}

// firstBusy is when a poll first saw anything but idle/completed.
func (d *dispatch) firstBusy() time.Time {
	for _, p := range d.polls {
		if !p.Status.Quiet() {
			return p.At
		}
	}
	return time.Time{}
}

// timedSender records when Send returned.
type timedSender struct {
	handoff.Sender
	d *dispatch
}

func (s timedSender) Send(ctx context.Context, text string) error {
	start := time.Now()
	err := s.Sender.Send(ctx, text)
	s.d.sentAt, s.d.sendDur = time.Now(), time.Since(start)
	return err
}

// pane is the project's tmux driver on the rig's Codex pane, as
// `handoff-fsm send` builds it (default options, Codex classifier).
func (r *rig) pane() *tmuxdriver.Pane {
	r.t.Helper()
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: tmuxdriver.Server{Socket: r.codex.Socket}, Target: r.codex.Target, Classifier: codex.New()})
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// send dispatches prompt to role through fsm.SendAndWait and records what
// happened. onPoll, if set, also sees every poll.
func (r *rig) send(role, prompt string, cfg handoff.Config, onPoll func(fsm.Poll)) *dispatch {
	r.t.Helper()
	d := &dispatch{}
	path, err := handoff.ResponsePath(r.workdir, role)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.ResponseTimeout)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // when did Codex write the file?
		defer wg.Done()
		for ctx.Err() == nil {
			if _, err := os.Lstat(path); err == nil {
				d.fileAt = time.Now()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var mu sync.Mutex
	p := r.pane()
	d.res, d.err = fsm.SendAndWait(ctx, timedSender{p, d}, p, prompt, fsm.Options{
		Config:  cfg,
		Role:    role,
		Workdir: r.workdir,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observer: func(e fsm.Entry) {
			r.t.Logf("transition %s → %s on %s (status %s)", e.From, e.To, e.Event, e.Status)
		},
		OnPoll: func(p fsm.Poll) {
			mu.Lock()
			d.polls = append(d.polls, p)
			mu.Unlock()
			if onPoll != nil {
				onPoll(p)
			}
		},
	})
	cancel()
	wg.Wait()
	r.t.Logf("dispatch: %d polls, statuses %v, elapsed %v, err %v", d.res.Polls, compact(d.statuses()), d.res.Elapsed.Round(time.Millisecond), d.err)
	return d
}

// compact folds runs of one status: [processing×5 completed×2].
func compact(ss []handoff.Status) []string {
	var out []string
	for i := 0; i < len(ss); {
		j := i
		for j < len(ss) && ss[j] == ss[i] {
			j++
		}
		out = append(out, string(ss[i])+"×"+strconv.Itoa(j-i))
		i = j
	}
	return out
}

// metric logs a measured number in one greppable format.
func metric(t *testing.T, name string, d time.Duration) {
	t.Helper()
	t.Logf("METRIC %s = %v", name, d.Round(time.Millisecond))
}

// The answer spans lines and carries quotes, $ and a backslash: the heredoc
// must hand it over byte for byte.
const answer = "Analysis done.\nIt's 100% \"real\": $HOME stays literal, so does \\n.\nLast line."

func TestRealCodexDispatchReturnsTheFileCodexWrote(t *testing.T) {
	r := newRig(t, realcodex.Options{})
	// A slow first byte keeps Codex busy for several polls: the path through
	// Working is then seen whatever the machine's timing.
	r.model.Script(fakemodel.WriteResponse(answer).In(r.workdir).After(time.Second), fakemodel.Answer("I wrote the response file."))

	d := r.send("analyst", "Analyse the project.", e2eConfig(true), nil)
	if d.err != nil {
		t.Fatalf("dispatch failed: %v", d.err)
	}
	// The heredoc ends the file with a newline after the last line.
	if d.res.Content != answer+"\n" || d.res.Source != fsm.SourceFile {
		t.Fatalf("got %q from %s, want the file's %q", d.res.Content, d.res.Source, answer+"\n")
	}
	archived, err := os.ReadFile(d.res.ArchivedPath)
	if err != nil || string(archived) != d.res.Content {
		t.Fatalf("archived copy %q (%v) differs from the returned content", archived, err)
	}
	if got := d.path(); !slices.Equal(got, []handoff.State{handoff.AwaitingStart, handoff.Working, handoff.Done}) {
		t.Fatalf("transitions %v, want AwaitingStart → Working → Done", got)
	}
	reqs := r.model.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[0].UserText, handoff.InstructionHeader) {
		t.Fatalf("Codex did not pass the RESPONSE FILE INSTRUCTION to the model: %+v", reqs)
	}
	if r.model.Pending() != 0 {
		t.Fatalf("%d scripted replies unused: the turn did not run to its end", r.model.Pending())
	}
	if d.fileAt.IsZero() {
		t.Fatal("never saw the response file appear")
	}
	metric(t, "send_duration(paste+Enter+verify)", d.sendDur)
	metric(t, "send_returned_to_first_busy_poll", d.firstBusy().Sub(d.sentAt))
	metric(t, "file_written_to_done", d.doneAt().Sub(d.fileAt))
	metric(t, "dispatch_total", d.res.Elapsed)
}

// Codex shows its busy UI this long after Enter: measured on the raw pane
// with the project's classifier, polling every 20 ms.
func TestRealCodexEnterToProcessing(t *testing.T) {
	r := newRig(t, realcodex.Options{})
	r.model.Script(fakemodel.Answer("Hello.").After(2 * time.Second))
	if err := r.codex.Paste(context.Background(), "Say hello"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cl := codex.New()
	enter := time.Now()
	r.keys("Enter")
	var seen time.Duration
	for time.Since(enter) < 5*time.Second {
		text, title, err := r.codex.Capture(context.Background())
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

func TestRealCodexSlowStartDoesNotEndEarly(t *testing.T) {
	r := newRig(t, realcodex.Options{})
	cfg := e2eConfig(true)
	silence := 2*cfg.IdleGrace + time.Second // longer than the startup window and the grace
	r.model.Script(fakemodel.WriteResponse(answer).In(r.workdir).After(silence), fakemodel.Answer("Done."))

	start := time.Now()
	d := r.send("programmer", "Implement it.", cfg, nil)
	if d.err != nil {
		t.Fatalf("slow start ended the dispatch: %v", d.err)
	}
	if d.res.Content != answer+"\n" {
		t.Fatalf("got %q", d.res.Content)
	}
	if waited := time.Since(start); waited < silence {
		t.Fatalf("done after %v, before the model even answered (%v)", waited, silence)
	}
	for _, e := range d.res.Journal {
		if e.Event == handoff.EventStartupTimeout || e.Event == handoff.EventQuiet {
			t.Fatalf("the silent model was taken for a quiet agent: %+v", e)
		}
	}
}

// Long streaming shows no Working line at all; only the pane title spins.
// The file is written first, the final message streams for seconds after
// it: Done must wait for the turn's end, and the next dispatch must work.
func TestRealCodexLongStreamingIsWaitedOut(t *testing.T) {
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

func TestRealCodexApprovalIsWaitingUserAnswer(t *testing.T) {
	r := newRig(t, realcodex.Options{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	r.model.Script(
		fakemodel.WriteResponse(answer).In(r.workdir).Escalated("Write the response file?"),
		fakemodel.Answer("Written after approval."))

	approved := make(chan struct{}, 1)
	var once sync.Once
	go func() {
		if _, ok := <-approved; ok {
			r.keys("y") // the user answers the prompt
		}
	}()
	d := r.send("analyst_review", "Review it.", e2eConfig(true), func(p fsm.Poll) {
		if p.Status == handoff.StatusWaitingUserAnswer {
			once.Do(func() { approved <- struct{}{} })
		}
	})
	close(approved)
	if !slices.Contains(d.statuses(), handoff.StatusWaitingUserAnswer) {
		t.Fatalf("approval prompt never observed as waiting_user_answer: %v", compact(d.statuses()))
	}
	if d.err != nil {
		t.Fatalf("dispatch failed: %v", d.err)
	}
	if d.res.Content != answer+"\n" {
		t.Fatalf("got %q", d.res.Content)
	}
	for _, p := range d.polls {
		if p.Status == handoff.StatusWaitingUserAnswer && p.State != handoff.Working {
			t.Fatalf("waiting for the user in state %s, want Working", p.State)
		}
	}
}

func TestRealCodexServerErrorFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply fakemodel.Reply
	}{
		{"http-500", fakemodel.HTTPError(500, "server_error", "fake internal error")},
		{"response-failed", fakemodel.Failed("the fake model failed this response")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, realcodex.Options{})
			r.model.Script(tc.reply)
			d := r.send("programmer_review", "Review the code.", e2eConfig(true), nil)
			var we *handoff.WaitError
			if !errors.Is(d.err, handoff.ErrTerminalError) || !errors.As(d.err, &we) {
				t.Fatalf("got %v, want a terminal error", d.err)
			}
			if we.LastStatus != handoff.StatusError || we.Role != "programmer_review" {
				t.Fatalf("wait error %+v", we)
			}
			// The error ends the wait at once: it is never taken for a quiet
			// agent whose grace runs out.
			for _, e := range d.res.Journal {
				if e.Event == handoff.EventQuiet || e.Event == handoff.EventStartupTimeout {
					t.Fatalf("the error screen was read as quiet: %+v", e)
				}
			}
			if n := len(d.res.Journal); n == 0 || d.res.Journal[n-1].Event != handoff.EventTerminalError {
				t.Fatalf("journal %+v does not end on terminal_error", d.res.Journal)
			}
			t.Logf("error message: %v", d.err)
		})
	}
}

func TestRealCodexAnswerWithoutFile(t *testing.T) {
	const reply = "Here is my answer, but I did not write the file."
	t.Run("strict", func(t *testing.T) {
		r := newRig(t, realcodex.Options{})
		// A slow first byte keeps Codex visibly busy for many polls, so the
		// usual path is Working → IdleGrace. A turn can still end between
		// two polls on a loaded machine; then the spec's path is the startup
		// timeout, and what the spec guarantees is checked for either path.
		r.model.Script(fakemodel.Answer(reply).After(1500 * time.Millisecond))
		cfg := e2eConfig(true)
		d := r.send("analyst", "Answer briefly.", cfg, nil)
		var we *handoff.WaitError
		if !errors.Is(d.err, handoff.ErrNoResponseFile) || !errors.As(d.err, &we) {
			t.Fatalf("got %v, want the strict no-response-file error", d.err)
		}
		switch we.State {
		case handoff.IdleGrace:
			// Seen working: the grace ran on consecutive quiet polls.
			if quiet := d.lastQuietRunStart(); d.doneAt().Sub(quiet) < cfg.IdleGrace {
				t.Fatalf("failed %v after the agent went quiet, before the %v grace", d.doneAt().Sub(quiet), cfg.IdleGrace)
			}
		case handoff.StartupTimeout:
			// Never seen working: not before twice the grace.
			if we.Elapsed < 2*cfg.IdleGrace {
				t.Fatalf("failed after %v from StartupTimeout, before twice the %v grace", we.Elapsed, cfg.IdleGrace)
			}
			t.Logf("the turn ended between two polls; the startup timeout released the guard (spec path)")
		default:
			t.Fatalf("failed in %s, want IdleGrace (or StartupTimeout when the turn was never seen)", we.State)
		}
		t.Logf("error message: %v", d.err)
	})
	t.Run("fallback", func(t *testing.T) {
		// Tips hidden: Codex prints a random "└ Tip: …" under some replies,
		// and the classifier's last-message extraction would take it along
		// (see the completed-tip.txt fixture); byte-for-byte needs it off.
		r := newRig(t, realcodex.Options{HideTips: true})
		r.model.Script(fakemodel.Answer(reply))
		d := r.send("analyst", "Answer briefly.", e2eConfig(false), nil)
		if d.err != nil {
			t.Fatalf("fallback dispatch failed: %v", d.err)
		}
		if d.res.Source != fsm.SourceFallback || d.res.Content != reply {
			t.Fatalf("got %q from %s, want %q from the terminal", d.res.Content, d.res.Source, reply)
		}
		if _, err := os.Stat(filepath.Join(handoff.ResponseDir(r.workdir), "analyst_summary.md")); err == nil {
			t.Fatal("a response file appeared from nowhere")
		}
	})
}

// buildCommand builds cmd/handoff-fsm once per test into a temp folder.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "handoff-fsm")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/handoff-fsm").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runSend runs `handoff-fsm send` against the rig's pane.
func (r *rig) runSend(bin string, args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	base := []string{"send", "--socket", r.codex.Socket, "--target", r.codex.Target,
		"--workdir", r.workdir, "--poll", "250ms", "--idle-grace", "3s", "--timeout", "60s"}
	cmd := exec.Command(bin, append(base, args...)...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		r.t.Fatal(err)
	}
	r.t.Logf("handoff-fsm send exit %d, stderr:\n%s", code, e.String())
	return o.String(), e.String(), code
}

// The shipped command, end to end: `handoff-fsm send` prints exactly what
// Codex wrote, and exits with the documented codes.
func TestRealCodexSendCommand(t *testing.T) {
	needCodex(t) // skip before building when Codex is missing
	bin := buildCommand(t)
	t.Run("file", func(t *testing.T) {
		r := newRig(t, realcodex.Options{})
		// A slow first byte keeps Codex busy for several polls: the path through
		// Working is then seen whatever the machine's timing.
		r.model.Script(fakemodel.WriteResponse(answer).In(r.workdir).After(time.Second), fakemodel.Answer("I wrote the response file."))
		trace := filepath.Join(t.TempDir(), "session.jsonl")
		stdout, stderr, code := r.runSend(bin, "--role", "analyst", "--prompt", "Analyse the project.", "--record", trace)
		if code != 0 || stdout != answer+"\n" {
			t.Fatalf("exit %d, stdout %q; want 0 and %q", code, stdout, answer+"\n")
		}
		for _, s := range []handoff.State{handoff.Working, handoff.Done} {
			if !strings.Contains(stderr, string(s)) {
				t.Errorf("stderr does not show the transition to %s", s)
			}
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
		stdout, stderr, code := r.runSend(bin, "--role", "analyst", "--prompt", "Analyse the project.")
		if code != 4 || stdout != "" || !strings.Contains(stderr, "terminal error") {
			t.Fatalf("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
		}
	})
}
