package e2e

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// needClaude returns the Claude Code binary and checks tmux (see needCLI).
func needClaude(t *testing.T) string { return needCLI(t, "Claude Code", realclaude.Binary) }

// claudeRig is one real Claude Code session in tmux talking to its own fake
// Anthropic model.
type claudeRig struct {
	t       *testing.T
	model   *fakemodel.Server
	claude  *realclaude.Session
	workdir string
}

// newClaudeRig starts a fake model and Claude Code in a fresh work folder
// and HOME; opts sets the rest (permissions, retries, size; zero values are
// realclaude's defaults). Everything is ended in t.Cleanup.
func newClaudeRig(t *testing.T, opts realclaude.Options) *claudeRig {
	t.Helper()
	return newClaudeRigAt(t, opts, t.TempDir())
}

// newClaudeRigAt is newClaudeRig with the work folder and HOME under root.
func newClaudeRigAt(t *testing.T, opts realclaude.Options, root string) *claudeRig {
	t.Helper()
	bin := needClaude(t)
	ctx := context.Background()
	workdir := filepath.Join(root, "work")
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fakemodel.Start(ctx, fakemodel.AnthropicMessages{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Close()
		for _, p := range srv.Problems() {
			t.Logf("fake model: %s", p)
		}
	})
	opts.Bin, opts.Workdir, opts.Home, opts.BaseURL = bin, workdir, filepath.Join(root, "home"), srv.URL
	s, err := realclaude.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	t.Logf("claude ready %v after start (tmux -L %s)", s.Ready.Sub(s.Started).Round(time.Millisecond), s.Socket)
	return &claudeRig{t: t, model: srv, claude: s, workdir: workdir}
}

// waitScreen waits up to timeout for cond on the plain screen text and the
// pane title; on timeout the test fails showing the screen.
func (r *claudeRig) waitScreen(timeout time.Duration, what string, cond func(plain, title string) bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := r.claude.WaitFor(ctx, 50*time.Millisecond, func(text, title string) bool {
		return cond(realclaude.StripANSI(text), title)
	})
	if err != nil {
		text, title, _ := r.claude.CapturePlain(context.Background())
		r.t.Fatalf("waiting for %s: %v\ntitle: %q\nscreen:\n%s\nfake model problems: %v", what, err, title, text, r.model.Problems())
	}
}

func (r *claudeRig) submit(prompt string) {
	r.t.Helper()
	if err := r.claude.Submit(context.Background(), prompt); err != nil {
		r.t.Fatal(err)
	}
}

func (r *claudeRig) keys(keys ...string) {
	r.t.Helper()
	if err := r.claude.Keys(context.Background(), keys...); err != nil {
		r.t.Fatal(err)
	}
}

// turnDone matches the line that ends a Claude Code turn: "✻ Brewed for 3s".
var turnDone = regexp.MustCompile(`✻ \S+ for (\d+m )?\d+s`)

// claudeFinished reports a turn that ended after last (text of its final
// reply): a "✻ … for Ns" line follows it and nothing offers to interrupt.
func claudeFinished(plain, last string) bool {
	i := strings.LastIndex(plain, last)
	return i >= 0 && turnDone.MatchString(plain[i:]) && !strings.Contains(plain, "esc to interrupt")
}

// pane is the project's tmux driver on the rig's Claude Code pane, as
// `handoff-fsm send --provider claude` builds it.
func (r *claudeRig) pane() *tmuxdriver.Pane {
	r.t.Helper()
	cl, err := provider.Lookup("claude")
	if err != nil {
		r.t.Fatal(err)
	}
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: tmuxdriver.Server{Socket: r.claude.Socket}, Target: r.claude.Target, Classifier: cl})
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// send dispatches prompt to role through fsm.SendAndWait, as the Codex
// tests do (see rig.send), and records what happened. onPoll, if set, also
// sees every poll.
func (r *claudeRig) send(role, prompt string, cfg handoff.Config, onPoll func(fsm.Poll)) *dispatch {
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
	go func() { // when did Claude Code write the file?
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

// claudeConfig is e2eConfig with a longer grace (and so startup window):
// on a loaded two-core machine Claude Code takes up to about five seconds
// to show that it took a prompt (the prompt sits in the composer until
// then), measured while other test suites ran.
func claudeConfig(strict bool) handoff.Config {
	cfg := e2eConfig(strict)
	cfg.IdleGrace = 6 * time.Second
	return cfg
}

// checkPath accepts the two paths the spec allows for a dispatch that ends
// in final: through Working, or — when the agent showed no sign of work
// within the startup window, as on a heavily loaded machine — through
// StartupTimeout first. A quiet agent whose grace ran out (EventQuiet) is
// only allowed when quietOK.
func checkPath(t *testing.T, d *dispatch, cfg handoff.Config, final handoff.State, quietOK bool) {
	t.Helper()
	got := d.path()
	normal := []handoff.State{handoff.AwaitingStart, handoff.Working, final}
	late := []handoff.State{handoff.AwaitingStart, handoff.StartupTimeout, handoff.Working, final}
	if quietOK {
		normal = []handoff.State{handoff.AwaitingStart, handoff.Working, handoff.IdleGrace, final}
		late = []handoff.State{handoff.AwaitingStart, handoff.StartupTimeout, handoff.Working, handoff.IdleGrace, final}
	}
	switch {
	case slices.Equal(got, normal):
	case slices.Equal(got, late):
		t.Logf("Claude Code showed no sign of work within the %v startup window (a loaded machine); the spec's StartupTimeout path was taken", cfg.IdleGrace)
	default:
		t.Fatalf("transitions %v, want %v (or %v)", got, normal, late)
	}
}

// fail reports the screen and the fake model's problems with a failure.
func (r *claudeRig) fail(format string, args ...any) {
	r.t.Helper()
	text, title, _ := r.claude.CapturePlain(context.Background())
	r.t.Fatalf(format+"\ntitle %q, screen:\n%s\nfake model problems: %v", append(args, title, text, r.model.Problems())...)
}

func TestRealClaudeDispatchReturnsTheFileClaudeWrote(t *testing.T) {
	r := newClaudeRig(t, realclaude.Options{})
	// A slow first byte keeps Claude Code busy for several polls: the path
	// through Working is then seen whatever the machine's timing.
	r.model.Script(fakemodel.WriteResponse(answer).After(time.Second), fakemodel.Answer("I wrote the response file."))

	d := r.send("analyst", "Analyse the project.", claudeConfig(true), nil)
	if d.err != nil {
		r.fail("dispatch failed: %v", d.err)
	}
	// The heredoc ends the file with a newline after the last line.
	if d.res.Content != answer+"\n" || d.res.Source != fsm.SourceFile {
		t.Fatalf("got %q from %s, want the file's %q", d.res.Content, d.res.Source, answer+"\n")
	}
	archived, err := os.ReadFile(d.res.ArchivedPath)
	if err != nil || string(archived) != d.res.Content {
		t.Fatalf("archived copy %q (%v) differs from the returned content", archived, err)
	}
	checkPath(t, d, claudeConfig(true), handoff.Done, false)
	turns := r.model.Turns()
	if len(turns) == 0 || !strings.Contains(turns[0].UserText, handoff.InstructionHeader) {
		t.Fatalf("Claude Code did not pass the RESPONSE FILE INSTRUCTION to the model: %+v", turns)
	}
	if len(turns) < 2 || len(turns[1].ToolResults) != 1 {
		t.Fatalf("the Bash result did not come back to the model: %+v", turns)
	}
	if r.model.Pending() != 0 {
		t.Fatalf("%d scripted replies unused: the turn did not run to its end", r.model.Pending())
	}
	if d.fileAt.IsZero() {
		t.Fatal("never saw the response file appear")
	}
	metric(t, "claude_send_duration(paste+Enter+verify)", d.sendDur)
	metric(t, "claude_send_returned_to_first_busy_poll", d.firstBusy().Sub(d.sentAt))
	metric(t, "claude_file_written_to_done", d.doneAt().Sub(d.fileAt))
	metric(t, "claude_dispatch_total", d.res.Elapsed)

	// The pane is really idle now: a second dispatch gets its own answer.
	r.model.Script(fakemodel.WriteResponse("second answer"), fakemodel.Answer("Written."))
	d2 := r.send("analyst", "Analyse again.", claudeConfig(true), nil)
	if d2.err != nil || d2.res.Content != "second answer\n" {
		r.fail("second dispatch: %q, %v", d2.res.Content, d2.err)
	}
}

func TestRealClaudeSlowStartDoesNotEndEarly(t *testing.T) {
	r := newClaudeRig(t, realclaude.Options{})
	cfg := claudeConfig(true)
	silence := 2*cfg.IdleGrace + time.Second // longer than the startup window and the grace
	r.model.Script(fakemodel.WriteResponse(answer).After(silence), fakemodel.Answer("Done."))

	start := time.Now()
	d := r.send("programmer", "Implement it.", cfg, nil)
	if d.err != nil {
		r.fail("slow start ended the dispatch: %v", d.err)
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
	for _, p := range d.polls {
		if p.State == handoff.Working && p.Status.Quiet() && p.At.Before(start.Add(silence)) {
			t.Fatalf("a poll at %v read %s while the model had not answered", p.At.Sub(start), p.Status)
		}
	}
}

func TestRealClaudeAnswerWithoutFile(t *testing.T) {
	const reply = "Here is my answer, but I did not write the file."
	t.Run("strict", func(t *testing.T) {
		r := newClaudeRig(t, realclaude.Options{})
		// A slow first byte keeps Claude Code visibly busy for many polls.
		r.model.Script(fakemodel.Answer(reply).After(1500 * time.Millisecond))
		cfg := claudeConfig(true)
		d := r.send("analyst", "Answer briefly.", cfg, nil)
		var we *handoff.WaitError
		if !errors.Is(d.err, handoff.ErrNoResponseFile) || !errors.As(d.err, &we) {
			r.fail("got %v, want the strict no-response-file error", d.err)
		}
		if we.State != handoff.IdleGrace {
			t.Fatalf("failed in %s, want IdleGrace", we.State)
		}
		checkPath(t, d, cfg, handoff.Failed, true)
		// The grace ran on consecutive quiet polls after the agent was seen.
		if quiet := d.lastQuietRunStart(); d.doneAt().Sub(quiet) < cfg.IdleGrace {
			t.Fatalf("failed %v after the agent went quiet, before the %v grace", d.doneAt().Sub(quiet), cfg.IdleGrace)
		}
		t.Logf("error message: %v", d.err)
	})
	t.Run("fallback", func(t *testing.T) {
		r := newClaudeRig(t, realclaude.Options{})
		r.model.Script(fakemodel.Answer(reply).After(time.Second))
		d := r.send("analyst", "Answer briefly.", claudeConfig(false), nil)
		if d.err != nil {
			r.fail("fallback dispatch failed: %v", d.err)
		}
		if d.res.Source != fsm.SourceFallback || d.res.Content != reply {
			r.fail("got %q from %s, want %q from the terminal", d.res.Content, d.res.Source, reply)
		}
		if _, err := os.Stat(filepath.Join(handoff.ResponseDir(r.workdir), "analyst_summary.md")); err == nil {
			t.Fatal("a response file appeared from nowhere")
		}
	})
}

func TestRealClaudeAPIErrorFails(t *testing.T) {
	for _, tc := range []struct {
		name    string
		retries int
		replies []fakemodel.Reply
		detail  string
	}{
		{"http-500", 0, []fakemodel.Reply{fakemodel.ServerError()}, "API Error: 500"},
		{"overloaded-529", 0, []fakemodel.Reply{fakemodel.Overloaded()}, "API Error: 529"},
		{"rate-limited-429", 0, []fakemodel.Reply{fakemodel.RateLimited(time.Second)}, "API Error: Request rejected (429)"},
		{"not-logged-in-401", 0, []fakemodel.Reply{fakemodel.HTTPError(401, "authentication_error", "invalid x-api-key")}, "Not logged in · Please run /login"},
		// One retry: the retry line reads as work, then the error ends it.
		{"http-500-after-a-retry", 1, fakemodel.Times(2, fakemodel.ServerError()), "API Error: 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newClaudeRig(t, realclaude.Options{MaxRetries: tc.retries})
			r.model.Script(tc.replies...)
			d := r.send("programmer_review", "Review the code.", claudeConfig(true), nil)
			var we *handoff.WaitError
			if !errors.Is(d.err, handoff.ErrTerminalError) || !errors.As(d.err, &we) {
				r.fail("got %v, want a terminal error", d.err)
			}
			if we.LastStatus != handoff.StatusError || we.Role != "programmer_review" {
				t.Fatalf("wait error %+v", we)
			}
			if !strings.Contains(d.err.Error(), tc.detail) {
				t.Fatalf("the error %q does not quote the screen's %q", d.err, tc.detail)
			}
			// The error ends the wait at once: it is never taken for a quiet
			// agent whose grace runs out.
			checkPath(t, d, claudeConfig(true), handoff.Failed, false)
			if n := len(d.res.Journal); n == 0 || d.res.Journal[n-1].Event != handoff.EventTerminalError {
				t.Fatalf("journal %+v does not end on terminal_error", d.res.Journal)
			}
			if got := len(r.model.Turns()); got != tc.retries+1 {
				t.Fatalf("%d requests, want %d (one and %d retries)", got, tc.retries+1, tc.retries)
			}
			t.Logf("error message: %v", d.err)
		})
	}
}

func TestRealClaudePermissionPromptIsWaitingUserAnswer(t *testing.T) {
	r := newClaudeRig(t, realclaude.Options{Permissions: realclaude.Ask})
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Written after approval."))

	// The user answers "1. Yes" — after a second, like a person: Claude Code
	// ignores keys that come right after it drew a dialog. Should the
	// prompt still be there, they press again.
	var mu sync.Mutex
	var last handoff.Status
	seen := make(chan struct{})
	var once sync.Once
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-seen:
		case <-stop:
			return
		}
		for i := 0; i < 5; i++ {
			select {
			case <-time.After(time.Second):
			case <-stop:
				return
			}
			mu.Lock()
			waiting := last == handoff.StatusWaitingUserAnswer
			mu.Unlock()
			if !waiting {
				return
			}
			_ = r.claude.Keys(context.Background(), "1")
		}
	}()
	d := r.send("analyst_review", "Review it.", claudeConfig(true), func(p fsm.Poll) {
		mu.Lock()
		last = p.Status
		mu.Unlock()
		if p.Status == handoff.StatusWaitingUserAnswer {
			once.Do(func() { close(seen) })
		}
	})
	close(stop)
	<-done
	if !slices.Contains(d.statuses(), handoff.StatusWaitingUserAnswer) {
		r.fail("permission prompt never observed as waiting_user_answer: %v", compact(d.statuses()))
	}
	if d.err != nil {
		r.fail("dispatch failed: %v", d.err)
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

// Claude Code's hooks fire in this offline setup: Stop with the last
// message when a turn ends, StopFailure with the error when it ends on an
// API error, UserPromptSubmit and PermissionRequest. Registered as
// `handoff-fsm hook --dir DIR`, they leave marker files (package hookmark).
// The test also measures when the Stop marker appears against the screen.
func TestRealClaudeHooksWriteMarkers(t *testing.T) {
	needClaude(t) // skip before building when Claude Code is missing
	bin := buildCommand(t)
	events := filepath.Join(t.TempDir(), "events")
	hook := handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)
	r := newClaudeRig(t, realclaude.Options{Hooks: map[string]string{
		"Stop": hook, "StopFailure": hook, "UserPromptSubmit": hook, "PermissionRequest": hook,
	}})
	r.model.Script(fakemodel.WriteResponse(answer).After(time.Second), fakemodel.Answer("Final words."))
	d := r.send("tester", "Test it.", claudeConfig(true), nil)
	if d.err != nil || d.res.Content != answer+"\n" {
		r.fail("dispatch: %q, %v", d.res.Content, d.err)
	}
	waitMarker := func(ev hookmark.Event) hookmark.Marker {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if m, ok, err := hookmark.Read(events, ev); err != nil {
				t.Fatal(err)
			} else if ok {
				return m
			}
			time.Sleep(20 * time.Millisecond)
		}
		evs, _ := hookmark.Events(events)
		r.fail("no %s marker; events so far: %+v", ev, evs)
		return hookmark.Marker{}
	}
	stopped := waitMarker(hookmark.Stopped)
	if stopped.LastMessage != "Final words." || stopped.Hook != "Stop" || stopped.Session == "" {
		t.Fatalf("stop marker %+v", stopped)
	}
	if sub := waitMarker(hookmark.Submitted); !strings.HasPrefix(sub.Detail, "Test it.") {
		t.Fatalf("submit marker %+v", sub)
	}
	// When did the Stop marker come, against the first quiet poll after
	// the agent was seen working, and the engine's decision?
	var firstQuiet time.Time
	working := false
	for _, p := range d.polls {
		if !p.Status.Quiet() {
			working = true
		} else if working && firstQuiet.IsZero() {
			firstQuiet = p.At
		}
	}
	if !firstQuiet.IsZero() {
		metric(t, "claude_stop_hook_after_first_quiet_poll(negative: before)", stopped.At.Sub(firstQuiet))
	}
	metric(t, "claude_stop_hook_after_file_written", stopped.At.Sub(d.fileAt))
	metric(t, "claude_done_after_stop_hook(negative: before)", d.doneAt().Sub(stopped.At))

	// An API error: StopFailure, with the error the screen shows.
	r.model.Script(fakemodel.ServerError())
	if d := r.send("tester", "Test again.", claudeConfig(true), nil); !errors.Is(d.err, handoff.ErrTerminalError) {
		r.fail("got %v, want a terminal error", d.err)
	}
	failed := waitMarker(hookmark.Failed)
	if failed.Error != "server_error" || !strings.HasPrefix(failed.LastMessage, "API Error: 500") {
		t.Fatalf("failure marker %+v", failed)
	}
	evs, err := hookmark.Events(events)
	if err != nil {
		t.Fatal(err)
	}
	var hooks []string
	for _, m := range evs {
		hooks = append(hooks, m.Hook)
	}
	t.Logf("hook calls in order: %v", hooks)
	if !slices.Equal(hooks, []string{"UserPromptSubmit", "Stop", "UserPromptSubmit", "StopFailure"}) {
		t.Fatalf("hook calls %v", hooks)
	}
}

// The shipped command with --provider claude: `handoff-fsm send` prints
// exactly what Claude Code wrote (exit 0), and an API error exits 4.
func TestRealClaudeSendCommand(t *testing.T) {
	needClaude(t)
	bin := buildCommand(t)
	run := func(r *claudeRig, args ...string) (stdout string, code int) {
		t.Helper()
		base := []string{"send", "--provider", "claude", "--socket", r.claude.Socket, "--target", r.claude.Target,
			"--workdir", r.workdir, "--poll", "250ms", "--idle-grace", "6s", "--timeout", "60s"}
		cmd := exec.Command(bin, append(base, args...)...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.ExitCode()
		case err != nil:
			t.Fatal(err)
		}
		t.Logf("handoff-fsm send exit %d, stderr:\n%s", code, e.String())
		return o.String(), code
	}
	t.Run("file", func(t *testing.T) {
		r := newClaudeRig(t, realclaude.Options{})
		r.model.Script(fakemodel.WriteResponse(answer).After(time.Second), fakemodel.Answer("I wrote the response file."))
		if stdout, code := run(r, "--role", "analyst", "--prompt", "Analyse the project."); code != 0 || stdout != answer+"\n" {
			r.fail("exit %d, stdout %q; want 0 and %q", code, stdout, answer+"\n")
		}
	})
	t.Run("api-error", func(t *testing.T) {
		r := newClaudeRig(t, realclaude.Options{})
		r.model.Script(fakemodel.Overloaded())
		if stdout, code := run(r, "--role", "analyst", "--prompt", "Analyse the project."); code != 4 || stdout != "" {
			r.fail("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
		}
	})
}
