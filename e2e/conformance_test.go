package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
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
	// Height is the pane's; 0 is the harness's (40 lines).
	Height int
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

// readyPatience is how long the e2e tests wait for a real CLI to show it
// is ready: doctor's (see conformers).
const readyPatience = live.ReadyPatience

// conformers are the providers every case runs on: each one's
// descriptor for the cases (live.Subjects), which `handoff-fsm doctor`
// runs too, so the two cannot drift.
func conformers() []conformer {
	var out []conformer
	for _, s := range live.Subjects() {
		var errs []apiError
		for _, e := range s.APIErrors {
			errs = append(errs, apiError{e.Name, e.Retries, e.Replies, e.Detail})
		}
		out = append(out, conformer{
			cli: s.CLI,
			start: func(t *testing.T, set setup) *rig {
				// A test's wait, not the product's: at a load of 40–50
				// OpenCode and Qwen Code took longer than their own ready
				// timeouts (90 s, 120 s) to start, tmux itself answering
				// late. The longest pin's (Kilo's 300 s) for every CLI:
				// it costs nothing when the CLI is quick, and a CLI that
				// never gets ready still fails, saying so.
				common := realcli.Common{Terminal: set.Terminal, Height: set.Height, ReadyTimeout: readyPatience}
				r := startRig(t, s.CLI, s.API, t.TempDir(), &common, func(ctx context.Context) (*realcli.Session, error) {
					return s.Start(ctx, common, live.Setup{Ask: set.Ask, Retries: set.Retries})
				})
				if s.Prepare != nil {
					s.Prepare(r.model)
				}
				return r
			},
			config: s.Config, apiErrors: errs, confirm: s.Confirm, approve: s.Approve,
		})
	}
	return out
}

// TestConformance runs the cases every provider passes on its real CLI.
// Each asserts what the specification guarantees whatever the timing: the
// outcome, the error and its text, and a path only as one the transition
// table allows. The providers run side by side, their cases one after
// another.
func TestConformance(t *testing.T) {
	eachConformer(t, func(t *testing.T, c conformer) {
		// The file back and a second dispatch, no file (strict), the first
		// API error, the confirmation and a '!' prompt are live's cases:
		// TestDoctor runs them through `handoff-fsm doctor`.
		//
		// Each API error on a fresh start (an error left on the screen is
		// not the next case's to read), before the shared start below, so
		// that no idle CLI waits beside them.
		for _, e := range c.apiErrors[1:] {
			t.Run("api-error-"+e.name, func(t *testing.T) { c.apiError(t, e) })
		}
		// The slow first byte and the fallback need only a ready composer,
		// so they share one start (a CLI start is most of a case's CPU):
		// the slow first byte on the fresh CLI, where the startup window
		// is, then the fallback as the next dispatch on the same pane, as
		// a user sends one, which must read this turn's message and not
		// the last one's. After a failure the pane's state is unknown: the
		// fallback then gets a start of its own.
		r := c.start(t, setup{})
		slowOK := t.Run("slow-first-byte-does-not-end-early", func(t *testing.T) { c.slowFirstByte(r.in(t)) })
		t.Run("no-file-fallback-returns-the-message", func(t *testing.T) {
			if !slowOK {
				c.noFileFallback(c.start(t, setup{}))
				return
			}
			r := r.in(t)
			r.drained()
			c.noFileFallback(r)
		})
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

// slowFirstByte: a model silent for longer than the startup window and
// the grace does not end the dispatch early. r is a ready CLI (r.t the
// case's test).
func (c conformer) slowFirstByte(r *rig) {
	t := r.t
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
	// The startup guard may still be released by its timeout (the spec's
	// "Startup timeout releases guard"): a CLI that draws the taken prompt
	// later than the grace, as OpenCode did beside two burners (idle for
	// the whole of its 8 s, 28 polls). A misread of the silent model's screen does not end
	// there: it would be idle through the grace that follows too, and the
	// silence outlasts both, so the dispatch would end without the file.
	for _, e := range d.res.Journal {
		if e.Event == handoff.EventQuiet {
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

// noFileFallback: an agent that answers without writing the file ends a
// fallback dispatch with its message, read from the terminal. r is a ready
// CLI (r.t the case's test).
func (c conformer) noFileFallback(r *rig) {
	t := r.t
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
