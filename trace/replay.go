package trace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/vclock"

	"github.com/benbjohnson/clock"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/version"
)

// Script is a scripted terminal: it plays a trace's moments as its clock
// passes them. Status and LastOutput report what the trace says at that
// time (status "idle" before the first status line), and a "file" moment
// writes the response file at path. It implements handoff.Terminal.
//
// It also stands in for the agent's input: it takes reminders (Send) and
// automatic answers (SendKeys) and drops them, as a recorded agent's
// reaction is already in the trace; and its Fingerprint changes once a
// "changed" moment is reached.
type Script struct {
	clk   clock.Clock
	start time.Time
	path  string
	// max is the size limit an "oversized" moment goes past.
	max int64

	mu      sync.Mutex
	lines   []Line
	next    int
	status  handoff.Status
	last    string
	changed bool
	// submitted is the latest "submitted" moment's reading; nil before.
	submitted *handoff.Submission
	err       error
}

// NewScript plays lines on clk from now (the dispatch), writing the response
// file at path.
func NewScript(lines []Line, clk clock.Clock, path string) *Script {
	return &Script{clk: clk, start: clk.Now(), path: path, lines: lines, status: handoff.StatusIdle,
		max: handoff.DefaultMaxResponseBytes}
}

// advance applies every moment the clock has reached.
func (s *Script) advance() error {
	elapsed := s.clk.Since(s.start)
	for s.err == nil && s.next < len(s.lines) && s.lines[s.next].At <= elapsed {
		l := s.lines[s.next]
		s.next++
		if l.Status != nil {
			s.status = *l.Status
		}
		if l.LastOutput != nil {
			s.last = *l.LastOutput
		}
		if l.Changed {
			s.changed = true
		}
		if l.Submitted != nil {
			s.submitted = l.Submitted
		}
		if l.File != nil {
			if err := os.WriteFile(s.path, []byte(*l.File), 0o644); err != nil {
				s.err = fmt.Errorf("scripted agent could not write the response file: %w", err)
			}
		}
		if l.Unusable != nil {
			if err := s.plant(*l.Unusable); err != nil {
				s.err = fmt.Errorf("scripted agent could not put a %s thing at the response path: %w", *l.Unusable, err)
			}
		}
	}
	return s.err
}

// plant puts a thing with problem p at the response path, in place of
// whatever is there: a dangling symlink, a folder (for every problem that
// is not about a link or the size: the engine refuses it the same way), or
// a sparse file one byte over the limit.
func (s *Script) plant(p responsefile.Problem) error {
	if err := os.RemoveAll(s.path); err != nil {
		return err
	}
	switch p {
	case responsefile.Symlink:
		return os.Symlink(s.path+".link-target", s.path)
	case responsefile.Oversized:
		f, err := os.Create(s.path)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Truncate(s.max + 1)
	}
	return os.Mkdir(s.path, 0o755)
}

// Send takes a reminder (Config.Reminders) and drops it.
func (s *Script) Send(ctx context.Context, text string) error { return nil }

// SendKeys takes an automatic answer (Config.AutoAnswer) and drops it.
func (s *Script) SendKeys(ctx context.Context, keys ...string) error { return nil }

// Fingerprint is 1 once a "changed" moment was reached, 0 before.
func (s *Script) Fingerprint() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed {
		return 1
	}
	return 0
}

// Status is the trace's status at the clock's time. The error is a failure
// to write the scripted response file (see Err).
func (s *Script) Status(ctx context.Context) (handoff.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.advance(); err != nil {
		return "", err
	}
	return s.status, nil
}

// LastOutput is the trace's last output at the clock's time ("" if the
// trace gives none).
func (s *Script) LastOutput(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.advance(); err != nil {
		return "", err
	}
	return s.last, nil
}

// Submission is the check at the end (handoff.SubmissionChecker): the
// trace's "submitted" reading at the clock's time; one that cannot tell
// when the trace gives none.
func (s *Script) Submission(ctx context.Context, text string) (handoff.Submission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.advance(); err != nil {
		return handoff.Submission{}, err
	}
	if s.submitted == nil {
		return handoff.CannotTell("the trace records no reading of the agent's user messages"), nil
	}
	return *s.submitted, nil
}

// Err is the script's own failure (it could not write the response file),
// so a replay can tell it apart from a terminal error in the trace.
func (s *Script) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Report is a replay's outcome, the JSON object `handoff-fsm replay`
// prints. Source is set only when the outcome is "done", Error only when it
// is "failed"; Content is "" on failure.
type Report struct {
	Outcome string `json:"outcome"`          // "done" or "failed"
	Source  string `json:"source,omitempty"` // "file" or "fallback"
	Error   string `json:"error,omitempty"`  // "terminal_error", "no_response_file" or "timeout"
	// NotSubmitted: the dispatch failed with its prompt still in the
	// agent's composer, never submitted (handoff.ErrNotSubmitted).
	NotSubmitted bool         `json:"not_submitted,omitempty"`
	Content      string       `json:"content"`
	At           float64      `json:"at"` // seconds from dispatch to the decision
	Transitions  []Transition `json:"transitions"`
	// Version is the build that dispatched, in `send --json` and `resume
	// --json` results (nil in a replay's).
	Version *version.Info `json:"version,omitempty"`
}

// Transition is one journal entry of a Report, with its time in seconds
// since dispatch.
type Transition struct {
	At     float64 `json:"at"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Event  string  `json:"event"`
	Status string  `json:"status"`
	// Evidence is what the transition was decided on, when the recorder
	// of the transition kept it (the service does); nil otherwise.
	Evidence *Evidence `json:"evidence,omitempty"`
}

// MaxReplayPolls bounds the polls of one replay (response timeout divided by
// the poll interval), so a trace cannot make the command run for hours.
const MaxReplayPolls = 1_000_000

// ReplayOptions configure Replay.
type ReplayOptions struct {
	// Config is the engine configuration (apply the trace's Config first);
	// a zero field takes the spec's default.
	Config handoff.Config
	// Workdir is where the scripted response file and its archive go; ""
	// uses a temporary folder removed afterwards.
	Workdir string
	// Role names the response file; "" is "analyst".
	Role string
	// Receipt is the dispatch's receipt; "" takes the trace config's (and
	// with none there, any file is taken).
	Receipt handoff.Receipt
	// Logger receives the engine's logs; nil discards them.
	Logger *slog.Logger
}

// Replay runs the real engine (fsm.Wait) on virtual time against a Script of
// t's moments and reports the outcome. A failed wait is a Report with
// Outcome "failed", not an error; the error is for a replay that could not
// run (bad config, file system trouble).
func Replay(ctx context.Context, t Trace, opts ReplayOptions) (Report, error) {
	if opts.Role == "" {
		opts.Role = "analyst"
	}
	if opts.Receipt == "" && t.Config != nil {
		opts.Receipt = t.Config.Receipt
	}
	opts.Config = opts.Config.WithDefaults()
	// A trace starts at the paste: there is no agent to look at before it.
	opts.Config.QueueWhenBusy = true
	if err := opts.Config.Validate(); err != nil {
		return Report{}, fmt.Errorf("replay: %w", err)
	}
	// Each poll costs a few microseconds; a trace asking for millions of
	// them (a 1 ns poll, say) would hang the command instead of answering.
	if n := opts.Config.ResponseTimeout / opts.Config.Poll; n > MaxReplayPolls {
		return Report{}, fmt.Errorf("replay: a %v timeout polled every %v is %d polls, over the %d a replay allows; raise the poll interval or lower the timeout",
			opts.Config.ResponseTimeout, opts.Config.Poll, n, MaxReplayPolls)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Workdir == "" {
		dir, err := os.MkdirTemp("", "handoff-replay-")
		if err != nil {
			return Report{}, fmt.Errorf("replay: %w", err)
		}
		defer os.RemoveAll(dir)
		opts.Workdir = dir
	}
	if err := responsefile.EnsureDir(opts.Workdir); err != nil {
		return Report{}, fmt.Errorf("replay: %w", err)
	}
	path, err := handoff.ResponsePath(opts.Workdir, opts.Role)
	if err != nil {
		return Report{}, fmt.Errorf("replay: %w", err)
	}
	// A fixed start makes every replay of a trace identical.
	clk := vclock.New(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
	script := NewScript(t.Lines, clk, path)
	script.max = opts.Config.MaxResponseBytes
	// The script is the sender too, so a trace recorded with reminders
	// replays (its prompt, like every reminder, goes nowhere).
	res, err := fsm.SendAndWait(ctx, script, script, "", fsm.Options{
		Config:   opts.Config,
		Role:     opts.Role,
		Workdir:  opts.Workdir,
		Clock:    clk,
		Logger:   opts.Logger,
		Observer: func(fsm.Entry) {},
		Receipt:  opts.Receipt,
	})
	if serr := script.Err(); serr != nil {
		return Report{}, fmt.Errorf("replay: %w", serr)
	}
	rep, err := ReportOf(res, err)
	if err != nil {
		return Report{}, fmt.Errorf("replay: %w", err)
	}
	return rep, nil
}

// ReportOf turns what fsm.Wait (or SendAndWait) returned into a Report: a
// successful wait or a *handoff.WaitError. Any other error (the wait could
// not decide) is returned as is.
func ReportOf(res fsm.Result, err error) (Report, error) {
	rep := Report{At: res.Elapsed.Seconds(), Transitions: make([]Transition, 0, len(res.Journal))}
	for _, e := range res.Journal {
		rep.Transitions = append(rep.Transitions, Transition{At: e.At.Sub(res.DispatchedAt).Seconds(),
			From: string(e.From), To: string(e.To), Event: string(e.Event), Status: string(e.Status)})
	}
	switch kind := handoff.ErrorKind(err); {
	case err == nil:
		rep.Outcome, rep.Source, rep.Content = "done", string(res.Source), res.Content
	case kind != "":
		rep.Outcome, rep.Error = "failed", kind
		rep.NotSubmitted = errors.Is(err, handoff.ErrNotSubmitted)
	default:
		return Report{}, err
	}
	return rep, nil
}
