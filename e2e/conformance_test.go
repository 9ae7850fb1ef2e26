package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/realdroid"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
	"github.com/handoff-fsm/handoff-fsm/internal/realomp"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/internal/realpi"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
)

// conformer is one provider's real CLI as the conformance table drives
// it: how to start it on a fake model, and what differs between CLIs (the
// grace a loaded machine needs, the errors the API can send, how a
// confirmation is asked for and answered).
type conformer struct {
	// cli is the CLI's descriptor: its name is the provider's, and a test
	// without its binary skips (or, in CI, fails).
	cli realcli.CLI
	// start runs the CLI in a private tmux server against its own fake
	// model; everything ends with the test.
	start func(t *testing.T, s setup) *rig
	// config is the dispatch's config (strict or fallback).
	config func(strict bool) handoff.Config
	// apiErrors are the failed requests that must end as a terminal error
	// quoting what the screen says.
	apiErrors []apiError
	// confirm is the reply that makes the CLI (started with setup.Ask) ask
	// the user before it writes the response file, and approve the key
	// that says yes.
	confirm func(answer string) fakemodel.Reply
	approve string
}

// setup is what a case asks of a CLI's start.
type setup struct {
	// Ask: the CLI asks before running a command (its confirmation dialog).
	Ask bool
	// Retries: how often the CLI retries a failed request.
	Retries int
	// Terminal is the terminal the CLI is told it runs in; the zero value
	// is the harness's own (a truecolor xterm for most).
	Terminal realcli.Terminal
}

// tmuxTerminal is what a tmux pane gives a CLI when nothing else sets its
// environment: TERM tmux-256color and no COLORTERM (a server started over
// SSH or by a service). The API-error, confirmation and delivery cases run
// there, the others in the harness's terminal, so every CLI is read in
// two terminals end to end (Gemini CLI draws no frames without COLORTERM).
var tmuxTerminal = realcli.Terminal{Term: "tmux-256color"}

// apiError is one failing request and the text the error must quote.
type apiError struct {
	name    string
	retries int
	replies []fakemodel.Reply
	detail  string
}

// conformers are the providers every case runs on.
func conformers() []conformer {
	return []conformer{
		{
			cli: realcodex.CLI,
			start: func(t *testing.T, s setup) *rig {
				// Tips hidden: Codex prints a random "└ Tip: …" under some
				// replies, which the fallback would take along.
				opts := realcodex.Options{Common: realcli.Common{Terminal: s.Terminal}, HideTips: true}
				if s.Ask {
					opts.ApprovalPolicy, opts.SandboxMode = "on-request", "workspace-write"
				}
				return newRig(t, opts)
			},
			config: e2eConfig,
			apiErrors: []apiError{
				{"http-500", 0, []fakemodel.Reply{fakemodel.HTTPError(500, "server_error", "fake internal error")}, "We’re currently experiencing high demand"},
				{"response-failed", 0, []fakemodel.Reply{fakemodel.Failed("the fake model failed this response")}, "stream disconnected before completion: the fake model failed this response"},
			},
			// Escalated: outside the sandbox, so on-request asks first.
			confirm: func(answer string) fakemodel.Reply {
				return fakemodel.WriteResponse(answer).Escalated("Write the response file?")
			},
			approve: "y",
		},
		{
			cli: realclaude.CLI,
			start: func(t *testing.T, s setup) *rig {
				opts := realclaude.Options{Common: realcli.Common{Terminal: s.Terminal}, MaxRetries: s.Retries}
				if s.Ask {
					opts.Permissions = realclaude.Ask
				}
				return newClaudeRig(t, opts)
			},
			config: claudeConfig,
			apiErrors: []apiError{
				{"http-500", 0, []fakemodel.Reply{fakemodel.ServerError()}, "API Error: 500"},
				{"overloaded-529", 0, []fakemodel.Reply{fakemodel.Overloaded()}, "API Error: 529"},
				{"rate-limited-429", 0, []fakemodel.Reply{fakemodel.RateLimited(time.Second)}, "API Error: Request rejected (429)"},
				{"not-logged-in-401", 0, []fakemodel.Reply{fakemodel.HTTPError(401, "authentication_error", "invalid x-api-key")}, "Not logged in · Please run /login"},
				// One retry: the retry line reads as work, then the error ends it.
				{"http-500-after-a-retry", 1, fakemodel.Times(2, fakemodel.ServerError()), "API Error: 500"},
			},
			// "A file redirect in this command can't be checked before it
			// runs": the heredoc needs approval in the default mode.
			confirm: fakemodel.WriteResponse,
			approve: "1",
		},
		{
			cli: realgemini.CLI,
			start: func(t *testing.T, s setup) *rig {
				// Gemini CLI retries on its own (a 500 for a long time);
				// setup.Retries has nothing to set.
				return newGeminiRig(t, realgemini.Options{Common: realcli.Common{Terminal: s.Terminal}, Ask: s.Ask})
			},
			config: nodeConfig,
			apiErrors: []apiError{
				// A 400 is shown at once: "✕ [API Error: {…}]".
				{"http-400", 0, []fakemodel.Reply{fakemodel.HTTPError(400, "", "Request contains an invalid argument (fake).")}, "Request contains an invalid argument (fake)."},
			},
			// The default approval mode asks before a command with a
			// redirection: "Allow execution of [Shell]?", "● 1. Allow once".
			confirm: fakemodel.WriteResponse,
			approve: "1",
		},
		{
			cli: realqwen.CLI,
			start: func(t *testing.T, s setup) *rig {
				// A 400 is not retried; setup.Retries has nothing to set.
				return newQwenRig(t, realqwen.Options{Common: realcli.Common{Terminal: s.Terminal}, Ask: s.Ask})
			},
			config: nodeConfig,
			apiErrors: []apiError{
				// "✕ [API Error: 400 Request contains an invalid argument (fake).]"
				{"http-400", 0, []fakemodel.Reply{fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake).")}, "API Error: 400 Request contains an invalid argument (fake)."},
			},
			// The default approval mode runs a `cat` heredoc unasked (cat
			// counts as read-only, its redirection notwithstanding); a
			// command that starts with mkdir is asked for: "Allow execution
			// of: 'mkdir, cat'?", "› 1. Yes, allow once".
			confirm: func(answer string) fakemodel.Reply {
				return fakemodel.WriteResponse(answer).Prefixed("mkdir -p .tmp && ")
			},
			approve: "1",
		},
		{
			cli: realopencode.CLI,
			start: func(t *testing.T, s setup) *rig {
				// A 400 is not retried; setup.Retries has nothing to set.
				return newOpenCodeRigAt(t, realopencode.Options{Common: realcli.Common{Terminal: s.Terminal}, Ask: s.Ask}, t.TempDir())
			},
			config: nodeConfig,
			apiErrors: []apiError{
				// A box with the API's message, the footer without a duration.
				{"http-400", 0, []fakemodel.Reply{fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake).")}, "Request contains an invalid argument (fake)."},
			},
			// With "permission": {"bash": "ask"} every command is asked
			// for: "△ Permission required", "Allow once" highlighted.
			confirm: fakemodel.WriteResponse,
			approve: "Enter",
		},
		{
			cli: realpi.CLI,
			start: func(t *testing.T, s setup) *rig {
				// A 400 is not retried; setup.Retries has nothing to set.
				return newPiRigAt(t, realpi.Options{Common: realcli.Common{Terminal: s.Terminal}, Ask: s.Ask}, t.TempDir())
			},
			config: nodeConfig,
			apiErrors: []apiError{
				// "Error: 400 Request contains an invalid argument (fake)."
				{"http-400", 0, []fakemodel.Reply{fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake).")}, "Error: 400 Request contains an invalid argument (fake)."},
			},
			// pi asks nothing of its own: the asking extension's dialog,
			// "→ Allow" highlighted, before every bash command.
			confirm: fakemodel.WriteResponse,
			approve: "Enter",
		},
		{
			cli: realdroid.CLI,
			start: func(t *testing.T, s setup) *rig {
				// A 400 is not retried; setup.Retries has nothing to set.
				return newDroidRigAt(t, realdroid.Options{Common: realcli.Common{Terminal: s.Terminal}, Ask: s.Ask}, t.TempDir())
			},
			config: nodeConfig,
			apiErrors: []apiError{
				// "●  BYOK Error: 400 Request contains an invalid argument (fake)."
				{"http-400", 0, []fakemodel.Reply{fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake).")}, "BYOK Error: 400 Request contains an invalid argument (fake)."},
			},
			// Without --auto every command is asked for: "Command to
			// approve · medium risk", "Yes, allow" highlighted.
			confirm: fakemodel.WriteResponse,
			approve: "Enter",
		},
		{
			cli: realomp.CLI,
			start: func(t *testing.T, s setup) *rig {
				// A 400 is not retried; setup.Retries has nothing to set.
				return newOmpRigAt(t, realomp.Options{Common: realcli.Common{Terminal: s.Terminal}, Ask: s.Ask}, t.TempDir())
			},
			config: nodeConfig,
			apiErrors: []apiError{
				// A box between two rules: "✘ 400 Request contains an invalid argument (fake)."
				{"http-400", 0, []fakemodel.Reply{fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake).")}, "400 Request contains an invalid argument (fake)."},
			},
			// The always-ask approval mode asks before every bash command:
			// "Allow tool: bash", "❯ Approve" highlighted.
			confirm: fakemodel.WriteResponse,
			approve: "Enter",
		},
	}
}

// TestConformance runs the cases every provider passes on its real CLI.
// Each asserts what the specification guarantees whatever the timing: the
// outcome, the error and its text, and a path only as one the transition
// table allows. The providers run side by side (each case starts its own
// rig), their cases one after another.
func TestConformance(t *testing.T) {
	eachConformer(t, func(t *testing.T, c conformer) {
		t.Run("file-back-byte-for-byte-then-a-second-dispatch", c.fileBack)
		t.Run("slow-first-byte-does-not-end-early", c.slowFirstByte)
		t.Run("no-file-strict-fails", c.noFileStrict)
		t.Run("no-file-fallback-returns-the-message", c.noFileFallback)
		for _, e := range c.apiErrors {
			t.Run("api-error-"+e.name, func(t *testing.T) { c.apiError(t, e) })
		}
		t.Run("confirmation-dialog-is-waiting-user-answer", c.confirmation)
	})
}

// eachConformer runs test on each provider's real CLI (only those named,
// when names are given) side by side; each takes a heavy slot (parallel),
// once its CLI is found (a missing one skips, or in CI fails, its
// subtest). The test itself holds no slot: its providers take them.
func eachConformer(t *testing.T, test func(t *testing.T, c conformer), names ...string) {
	t.Parallel()
	for _, c := range conformers() {
		if len(names) > 0 && !slices.Contains(names, c.cli.Name) {
			continue
		}
		t.Run(c.cli.Name, func(t *testing.T) {
			parallel(t)
			c.cli.Require(t)
			test(t, c)
		})
	}
}

// checkJournal asserts what the spec guarantees about a dispatch's path,
// whatever the machine's timing: a chain of moves the table allows
// (fsm.CheckJournal) that ends in final. Which chain depends on how fast
// the CLI draws, so it is logged, not asserted.
func checkJournal(t *testing.T, d *dispatch, final handoff.State) {
	t.Helper()
	if err := fsm.CheckJournal(d.res.Journal); err != nil {
		t.Fatalf("journal %+v: %v", d.res.Journal, err)
	}
	if got := d.path(); len(got) == 0 || got[len(got)-1] != final {
		t.Fatalf("transitions %v, want a path ending in %s", got, final)
	}
	t.Logf("path: %v", d.path())
}

func (c conformer) fileBack(t *testing.T) {
	r := c.start(t, setup{})
	// A slow first byte keeps the agent busy for several polls.
	r.model.Script(fakemodel.WriteResponse(answer).After(time.Second), fakemodel.Answer("I wrote the response file."))
	d := r.send("analyst", "Analyse the project.", c.config(true), nil)
	if d.err != nil {
		r.fail("dispatch failed: %v", d.err)
	}
	// The heredoc ends the file with a newline after the last line.
	if d.res.Content != answer+"\n" || d.res.Source != fsm.SourceFile {
		r.fail("got %q from %s, want the file's %q", d.res.Content, d.res.Source, answer+"\n")
	}
	archived, err := os.ReadFile(d.res.ArchivedPath)
	// The agent copied the receipt line; the engine returned the answer without it.
	if err != nil || string(archived) != d.res.Receipt.ReceiptLine()+"\n"+d.res.Content {
		t.Fatalf("archived copy %q (%v) is not the receipt line and the returned content", archived, err)
	}
	checkJournal(t, d, handoff.Done)
	turns := r.model.Turns()
	if len(turns) == 0 || !strings.Contains(turns[0].UserText, handoff.InstructionHeader) {
		t.Fatalf("the RESPONSE FILE INSTRUCTION did not reach the model: %+v", turns)
	}
	if len(turns) < 2 || len(turns[1].ToolResults) == 0 {
		t.Fatalf("the shell tool's result did not come back to the model: %+v", turns)
	}
	if d.fileAt.IsZero() {
		t.Fatal("never saw the response file appear")
	}
	metric(t, c.cli.Name+"_send_duration(paste+Enter+verify)", d.sendDur)
	metric(t, c.cli.Name+"_file_written_to_done", d.doneAt().Sub(d.fileAt))
	metric(t, c.cli.Name+"_dispatch_total", d.res.Elapsed)

	// The pane is ready again: a second dispatch gets its own answer.
	r.model.Script(fakemodel.WriteResponse("second answer"), fakemodel.Answer("Written."))
	d2 := r.send("analyst", "Analyse again.", c.config(true), nil)
	if d2.err != nil || d2.res.Content != "second answer\n" {
		r.fail("second dispatch: %q, %v", d2.res.Content, d2.err)
	}
	checkJournal(t, d2, handoff.Done)
}

func (c conformer) slowFirstByte(t *testing.T) {
	r := c.start(t, setup{})
	cfg := c.config(true)
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
	checkJournal(t, d, handoff.Done)
	for _, e := range d.res.Journal {
		if e.Event == handoff.EventQuiet || e.Event == handoff.EventStartupTimeout {
			t.Fatalf("the silent model was taken for a quiet agent: %+v", e)
		}
	}
	for _, p := range d.polls {
		if p.State == handoff.Working && p.Status.Quiet() && p.At.Before(start.Add(silence)) {
			t.Fatalf("a poll at %v read %s while the model had not answered", p.At.Sub(start), p.Status)
		}
	}
}

// reply is what the model answers instead of writing the file.
const reply = "Here is my answer, but I did not write the file."

func (c conformer) noFileStrict(t *testing.T) {
	r := c.start(t, setup{})
	// A slow first byte keeps the agent visibly busy for many polls, so
	// the usual path is Working → IdleGrace; a turn that ends between two
	// polls of a loaded machine takes the startup timeout instead.
	r.model.Script(fakemodel.Answer(reply).After(1500 * time.Millisecond))
	cfg := c.config(true)
	d := r.send("analyst", "Answer briefly.", cfg, nil)
	var we *handoff.WaitError
	if !errors.Is(d.err, handoff.ErrNoResponseFile) || !errors.As(d.err, &we) {
		r.fail("got %v, want the strict no-response-file error", d.err)
	}
	checkJournal(t, d, handoff.Failed)
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
}

func (c conformer) noFileFallback(t *testing.T) {
	r := c.start(t, setup{})
	r.model.Script(fakemodel.Answer(reply).After(time.Second))
	d := r.send("analyst", "Answer briefly.", c.config(false), nil)
	if d.err != nil {
		r.fail("fallback dispatch failed: %v", d.err)
	}
	if d.res.Source != fsm.SourceFallback || d.res.Content != reply {
		r.fail("got %q from %s, want %q from the terminal", d.res.Content, d.res.Source, reply)
	}
	checkJournal(t, d, handoff.Done)
	if _, err := os.Stat(filepath.Join(handoff.ResponseDir(r.workdir), "analyst_summary.md")); err == nil {
		t.Fatal("a response file appeared from nowhere")
	}
}

func (c conformer) apiError(t *testing.T, e apiError) {
	r := c.start(t, setup{Retries: e.retries, Terminal: tmuxTerminal})
	r.model.Script(e.replies...)
	d := r.send("programmer_review", "Review the code.", c.config(true), nil)
	var we *handoff.WaitError
	if !errors.Is(d.err, handoff.ErrTerminalError) || !errors.As(d.err, &we) {
		r.fail("got %v, want a terminal error", d.err)
	}
	if we.LastStatus != handoff.StatusError || we.Role != "programmer_review" {
		t.Fatalf("wait error %+v", we)
	}
	if !strings.Contains(d.err.Error(), e.detail) {
		t.Fatalf("the error %q does not quote the screen's %q", d.err, e.detail)
	}
	checkJournal(t, d, handoff.Failed)
	if n := len(d.res.Journal); d.res.Journal[n-1].Event != handoff.EventTerminalError {
		t.Fatalf("journal %+v does not end on terminal_error", d.res.Journal)
	}
	if got := len(r.model.Turns()); got != e.retries+1 {
		t.Fatalf("%d requests, want %d (one and %d retries)", got, e.retries+1, e.retries)
	}
	t.Logf("error message: %v", d.err)
}

func (c conformer) confirmation(t *testing.T) {
	r := c.start(t, setup{Ask: true, Terminal: tmuxTerminal})
	r.model.Script(c.confirm(answer), fakemodel.Answer("Written after approval."))
	// The user answers once the dialog was seen — after a second, like a
	// person: CLIs ignore keys that come right after they drew a dialog.
	// Should it still be there, they press again.
	var mu sync.Mutex
	var last handoff.Status
	seen, stop, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		select {
		case <-seen:
		case <-stop:
			return
		}
		for range 5 {
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
			_ = r.cli.Keys(context.Background(), c.approve)
		}
	}()
	d := r.send("analyst_review", "Review it.", c.config(true), func(p fsm.Poll) {
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
		r.fail("the confirmation was never observed as waiting_user_answer: %v", compact(d.statuses()))
	}
	if d.err != nil {
		r.fail("dispatch failed: %v", d.err)
	}
	if d.res.Content != answer+"\n" {
		t.Fatalf("got %q", d.res.Content)
	}
	checkJournal(t, d, handoff.Done)
	for _, p := range d.polls {
		if p.Status == handoff.StatusWaitingUserAnswer && p.State != handoff.Working {
			t.Fatalf("waiting for the user in state %s, want Working", p.State)
		}
	}
}
