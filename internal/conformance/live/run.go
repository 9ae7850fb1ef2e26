package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// The cases every CLI passes, in the order Check runs them.
const (
	CaseReady        = "ready"
	CaseFile         = "dispatch-answered-through-the-file"
	CaseSecond       = "second-dispatch-on-the-same-pane"
	CaseBang         = "prompt-starting-with-!-delivered-inert"
	CaseNoFileStrict = "no-file-strict-fails"
	CaseAPIError     = "api-error-is-a-terminal-error"
	CaseConfirmation = "confirmation-dialog-waits-for-the-user"
)

// Cases lists the case names in the order Check runs them.
func Cases() []string {
	return []string{CaseReady, CaseFile, CaseSecond, CaseBang, CaseNoFileStrict, CaseAPIError, CaseConfirmation}
}

// Result is one case on one CLI: right or wrong, why, and the screen's
// lines that decided (the last non-blank lines when the case ended).
type Result struct {
	Case    string        `json:"case"`
	OK      bool          `json:"ok"`
	Reason  string        `json:"reason"`
	Lines   []string      `json:"lines,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Answer spans lines and carries quotes, $ and a backslash: the heredoc
// must hand it over byte for byte.
const Answer = "Analysis done.\nIt's 100% \"real\": $HOME stays literal, so does \\n.\nLast line."

// Rig is one real CLI in a private tmux server, talking to its own fake
// model, in a work folder and home of its own.
type Rig struct {
	Subject Subject
	Model   *fakemodel.Server
	Session *realcli.Session
	Workdir string

	locks   string        // the pane locks' folder: the rig's own, removed with it
	started time.Duration // from the start to ready
}

// StartRig starts a fake model and, on it, the CLI at bin as setup asks,
// with its work folder and home under root (which the caller removes).
// terminal is the terminal it is told it runs in (zero: the CLI's own
// default). On error everything started is ended again.
func StartRig(ctx context.Context, s Subject, bin, root string, setup Setup, terminal realcli.Terminal) (*Rig, error) {
	workdir := filepath.Join(root, "work")
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		return nil, err
	}
	// The dispatches' pane locks stay in root too: the user's lock folder
	// gets no file of a pane that is gone after the check.
	locks := filepath.Join(root, "locks")
	if err := os.MkdirAll(locks, 0o700); err != nil {
		return nil, err
	}
	m, err := fakemodel.Start(ctx, s.API)
	if err != nil {
		return nil, err
	}
	if s.Prepare != nil {
		s.Prepare(m)
	}
	common := realcli.Common{Bin: bin, Workdir: workdir, Home: filepath.Join(root, "home"), BaseURL: m.URL, Terminal: terminal, ReadyTimeout: ReadyPatience}
	sess, err := s.Start(ctx, common, setup)
	if err != nil {
		_ = m.Close()
		return nil, err
	}
	return &Rig{Subject: s, Model: m, Session: sess, Workdir: workdir, locks: locks}, nil
}

// Close ends the CLI (every process of its pane), its tmux server and the
// fake model.
func (r *Rig) Close() error {
	return errors.Join(r.Session.Close(), r.Model.Close())
}

// Dispatch is one SendAndWait through the project's own stack (the tmux
// driver with the provider's classifier and composer, the fsm engine),
// with what it observed.
type Dispatch struct {
	Res   fsm.Result
	Err   error
	Polls []fsm.Poll
}

// Statuses lists each poll's status, in order.
func (d *Dispatch) Statuses() []handoff.Status {
	var out []handoff.Status
	for _, p := range d.Polls {
		out = append(out, p.Status)
	}
	return out
}

// Send dispatches prompt to role with cfg, as `handoff-fsm send
// --provider NAME` does; onPoll, if set, also sees every poll.
func (r *Rig) Send(ctx context.Context, role, prompt string, cfg handoff.Config, onPoll func(fsm.Poll)) (*Dispatch, error) {
	name := r.Subject.CLI.Name
	cl, err := provider.Lookup(name)
	if err != nil {
		return nil, err
	}
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: tmuxdriver.Server{Socket: r.Session.Socket}, Target: r.Session.Target,
		Classifier: cl, EnterDelay: provider.EnterDelay(name)})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*cfg.ResponseTimeout)
	defer cancel()
	d := &Dispatch{}
	var polls PollLog
	d.Res, d.Err = fsm.SendAndWait(ctx, p, p, prompt, fsm.Options{Config: cfg, Role: role, Workdir: r.Workdir, PaneDir: r.locks,
		// What matters is in the polls and the result.
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnPoll: polls.Keep(onPoll)})
	d.Polls = polls.Polls()
	return d, nil
}

// PollLog keeps the polls of one dispatch as the engine reports them
// (fsm.Options.OnPoll), for a check that reads them once it is over.
type PollLog struct {
	mu    sync.Mutex
	polls []fsm.Poll
}

// Keep is the OnPoll that keeps each poll, then passes it on to then when
// then is set (a test that watches the dispatch as it goes).
func (l *PollLog) Keep(then func(fsm.Poll)) func(fsm.Poll) {
	return func(p fsm.Poll) {
		l.mu.Lock()
		l.polls = append(l.polls, p)
		l.mu.Unlock()
		if then != nil {
			then(p)
		}
	}
}

// Polls is what was kept so far, in order.
func (l *PollLog) Polls() []fsm.Poll {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.polls)
}

// Drained waits (up to 20 s) until the model served every scripted reply:
// a CLI's last turn of a dispatch may come after the dispatch ended.
func (r *Rig) Drained(ctx context.Context) error {
	deadline := time.Now().Add(20 * time.Second)
	for r.Model.Pending() > 0 {
		if time.Now().After(deadline) {
			return fmt.Errorf("the model still has %d scripted replies nobody asked for", r.Model.Pending())
		}
		if err := realcli.Pause(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// Screen is the last n non-blank lines of the pane, as a person sees them.
func (r *Rig) Screen(ctx context.Context, n int) []string {
	text, _, err := r.Session.CapturePlain(ctx)
	if err != nil {
		return []string{"(no capture: " + err.Error() + ")"}
	}
	return lastLines(text, n)
}

func lastLines(text string, n int) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if l := strings.TrimRight(lines[i], " \u00a0"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Journaled checks what the spec guarantees about a dispatch's path,
// whatever the machine's timing: a chain of moves the transition table
// allows that ends in final.
func Journaled(d *Dispatch, final handoff.State) error {
	if err := fsm.CheckJournal(d.Res.Journal); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if n := len(d.Res.Journal); n == 0 || d.Res.Journal[n-1].To != final {
		return fmt.Errorf("the dispatch's path does not end in %s: %+v", final, d.Res.Journal)
	}
	return nil
}
