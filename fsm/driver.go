package fsm

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/benbjohnson/clock"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Options configure one wait.
type Options struct {
	// Config holds poll, grace, timeout and strictness; the zero Config is
	// the spec's defaults.
	Config handoff.Config
	// Role is the agent role waited on; it names the response file (see
	// Roles) and the archived copies. Required.
	Role string
	// Roles maps roles to response file names; nil is the spec's five
	// (handoff.DefaultRoleFiles). An orchestrator's own roles go here.
	Roles handoff.RoleFiles
	// Workdir is the folder the response files live under
	// (<Workdir>/.tmp/agent-responses); "" is the current directory.
	Workdir string
	// Archive keeps the files the wait takes away; nil creates one for this
	// run under Workdir. Share one across dispatches to number a run's
	// files in order.
	Archive *responsefile.Archive
	// Clock is the time source; nil is the real clock. A *vclock.Clock runs
	// the wait on virtual time: it never blocks (tests, replay).
	Clock clock.Clock
	// Logger receives the startup-timeout warning (always logged) and, with
	// the default Observer, every transition. nil is slog.Default().
	Logger *slog.Logger
	// Observer, when set, receives every transition as it happens (for
	// logging or metrics); nil logs each one at Info level on Logger.
	Observer func(Entry)
	// OnPoll, when set, is called after every observation (for progress
	// lines and recordings). It runs on the waiting goroutine: keep it quick.
	OnPoll func(Poll)
	// Settle, when positive, makes SendAndWait wait (up to Settle) for the
	// agent to show a ready prompt on two observations in a row before it
	// pastes: agents ignore input for a few seconds after they start. Zero
	// sends at once, as the spec does.
	Settle time.Duration
	// OnAttention, when set, is called once per dispatch when the agent
	// waits for the user and nothing answers automatically (a permission
	// prompt, a question); nil logs a warning on Logger.
	OnAttention func(Poll)
	// Hints, when set, wakes the wait before its next poll: a value says
	// "something may have changed" (the response file was written, the pane
	// printed; see responsefile.Watch). A hint decides nothing: the wait
	// observes again, at most every HintPoll, and the core decides on that
	// observation as on any other. For HintWindow after a hint it also polls
	// every HintPoll (an agent usually goes quiet within a few hundred
	// milliseconds of writing its file), then at Config.Poll again, which
	// stays the safety net; the deadlines stay exact.
	Hints <-chan struct{}
	// Output, when set, says the terminal printed something (a tmux
	// control-mode client's %output: tmuxdriver.Control). The wait looks
	// again once the output has paused for OutputQuiet — or after
	// OutputEvery while it keeps coming (a spinner never pauses) — so the
	// end of a turn is seen within tens of milliseconds without a look per
	// redraw.
	Output <-chan struct{}
	// OutputQuiet and OutputEvery shape the looks output triggers;
	// DefaultOutputQuiet and Config.Poll if zero (output that never pauses
	// then costs no more looks than polling does).
	OutputQuiet, OutputEvery time.Duration
	// Turns, when set, delivers the agent's own word that its turn is over
	// (responsefile.Watcher.Turns: a marker written by Codex's notify
	// program through `handoff-fsm notify-hook`). The wait then observes
	// without reading the screen: status completed, the response file as it
	// is. The screen is still polled at Config.Poll and guards everything
	// else (errors, a dead pane). A marker older than the dispatch is
	// ignored.
	Turns <-chan struct{}
	// HintPoll is the fastest the wait observes after a hint;
	// DefaultHintPoll if zero.
	HintPoll time.Duration
	// HintWindow is how long the fast polling lasts after a hint;
	// DefaultHintWindow if zero.
	HintWindow time.Duration
}

// The defaults of the event-driven wait (Options.Hints, Options.Output).
const (
	DefaultHintPoll    = 25 * time.Millisecond
	DefaultHintWindow  = 2 * time.Second
	DefaultOutputQuiet = 30 * time.Millisecond
)

// Poll is what one observation saw and what the core made of it.
type Poll struct {
	At      time.Time
	Elapsed time.Duration // since dispatch
	N       int           // 1 for the first poll
	Status  handoff.Status
	Detail  string // the terminal's error, when Status could not be read
	File    FileState
	// Content is the response file's text when this poll read it (File is
	// FileReady or FileBlank); "" otherwise.
	Content string
	// Archived is where the file read by this poll was moved (a consumed
	// response or a blank file); "" otherwise.
	Archived string
	// TurnComplete: this observation is the agent's completion hook, not a
	// reading of the screen (Options.Turns).
	TurnComplete bool
	// LastOutput is the terminal's last output when this poll fetched it
	// (fallback); "" otherwise.
	LastOutput string
	// State is the state after this poll, Transitions what it fired.
	State       handoff.State
	Transitions []Entry
	// Outcome is how the dispatch ended, when this poll ended it.
	Outcome *handoff.Outcome
	// WindowLeft is the time left in the startup window (AwaitingStart) or
	// the idle grace (IdleGrace, StartupTimeout); 0 in other states.
	WindowLeft time.Duration
	// Deadline is the next deadline (zero once the wait is over).
	Deadline time.Time
}

// Source says where a response came from: the Name of the table's done
// Outcome.
type Source string

// The sources of a response.
const (
	SourceFile     Source = "file"     // the agent's response file
	SourceFallback Source = "fallback" // the terminal's last output (strict handoff off)
)

// Result is the outcome of a wait. On failure Wait returns the error along
// with a Result holding the journal, the elapsed time and the poll count.
type Result struct {
	Content string
	Source  Source
	// DispatchedAt is when the wait started: the origin of Elapsed and of
	// the journal's times.
	DispatchedAt time.Time
	// Journal lists every transition, in order.
	Journal []Entry
	// Elapsed is the time from dispatch to the observation that decided.
	Elapsed time.Duration
	Polls   int
	// ArchivedPath is where the consumed response file now is ("" for a
	// fallback).
	ArchivedPath string
}

// Outcome is the table's ending for a successful wait (its Source); the zero
// Outcome for a Result without a source.
func (r Result) Outcome() handoff.Outcome {
	for _, o := range handoff.Outcomes() {
		if o.Done() && o.Name == string(r.Source) {
			return o
		}
	}
	return handoff.Outcome{}
}

// Wait polls term and the role's response file until the agent's answer is
// there, the wait fails, or ctx ends. The prompt is taken to have been
// dispatched when Wait starts.
//
// Each poll asks the terminal for its status, then looks at the response
// file; the file is read only while the terminal is quiet (idle/completed),
// so a file still being written is not taken. A blank file is archived and
// counts as absent. A consumed file is archived; ArchivedPath says where.
// Polls happen every Config.Poll and also at each deadline, so a deadline is
// decided on an observation taken then.
//
// Failures are a *handoff.WaitError (errors.Is against
// handoff.ErrTerminalError, ErrNoResponseFile, ErrTimeout). An unusable
// response file (symlink, too big, unreadable) ends the wait at once with an
// error wrapping handoff.ErrResponseFile; the file is left in place. When ctx
// ends the wait returns ctx.Err().
func Wait(ctx context.Context, term handoff.Terminal, opts Options) (Result, error) {
	r, err := prepare(opts)
	if err != nil {
		return Result{}, err
	}
	if err := r.canAct(nil, term); err != nil {
		return Result{}, err
	}
	return r.wait(ctx, term)
}

func isFingerprinter(t handoff.Terminal) bool {
	_, ok := t.(handoff.Fingerprinter)
	return ok
}

// canAct checks that the configured actions have someone to carry them out:
// reminders need a Sender, automatic answers a KeySender (s or term).
func (r *run) canAct(s handoff.Sender, term handoff.Terminal) error {
	r.sender = s
	if k, ok := s.(handoff.KeySender); ok {
		r.keys = k
	} else if k, ok := term.(handoff.KeySender); ok {
		r.keys = k
	}
	switch {
	case r.cfg.Reminders > 0 && r.sender == nil:
		return fmt.Errorf("%w: reminders need a wait that can send to the agent (use SendAndWait)", handoff.ErrInvalidConfig)
	case r.cfg.StartOnOutput && !isFingerprinter(term):
		return fmt.Errorf("%w: StartOnOutput needs a terminal that tells screens apart (handoff.Fingerprinter)", handoff.ErrInvalidConfig)
	case r.cfg.AutoAnswer != "" && r.keys == nil:
		return fmt.Errorf("%w: automatic answers need a terminal that can type keys (handoff.KeySender)", handoff.ErrInvalidConfig)
	}
	return nil
}

// SendAndWait dispatches prompt to an agent and waits for its answer, in the
// spec's order: make sure the response folder exists, archive a stale
// response file (never delete it), send the prompt with the RESPONSE FILE
// INSTRUCTION block appended exactly once, then Wait.
func SendAndWait(ctx context.Context, s handoff.Sender, term handoff.Terminal, prompt string, opts Options) (Result, error) {
	r, err := prepare(opts)
	if err != nil {
		return Result{}, err
	}
	if err := r.canAct(s, term); err != nil {
		return Result{}, err
	}
	if err := r.settleFor(ctx, opts.Settle, term); err != nil {
		return Result{}, err
	}
	if err := responsefile.EnsureDir(r.workdir); err != nil {
		return Result{}, err
	}
	if err := responsefile.ClearTurnMarker(r.path); err != nil {
		return Result{}, err
	}
	stale, err := responsefile.ClearStale(r.path, r.role, r.archive)
	if err != nil {
		return Result{}, fmt.Errorf("clear stale response file: %w", err)
	}
	if stale != "" {
		r.log.Info("archived a stale response file before dispatch", "role", r.role, "archived", stale)
	}
	if err := s.Send(ctx, handoff.WithInstruction(prompt, r.path)); err != nil {
		return Result{}, fmt.Errorf("send prompt to %s: %w", r.role, err)
	}
	return r.wait(ctx, term)
}

// run is one wait's resolved options.
type run struct {
	cfg      handoff.Config
	role     string
	workdir  string
	path     string
	archive  *responsefile.Archive
	clk      clock.Clock
	sleep    Sleeper
	log      *slog.Logger
	observer func(Entry)
	onPoll   func(Poll)
	// sender sends reminders, keys types automatic answers; nil when the
	// wait cannot (then the config may not ask for them).
	sender    handoff.Sender
	keys      handoff.KeySender
	attention func(Poll)
	// fp is the first observation's screen fingerprint (StartOnOutput).
	fp    uint64
	fpSet bool
	// hints wakes the wait early (Options.Hints); nil for plain polling.
	hints      <-chan struct{}
	turns      <-chan struct{}
	turnNow    bool // the next observation is a completion hook's
	output     <-chan struct{}
	outQuiet   time.Duration
	outEvery   time.Duration
	hintPoll   time.Duration
	hintWindow time.Duration
	// hintUntil is when the fast polling after the last hint ends.
	hintUntil time.Time
}

func prepare(opts Options) (*run, error) {
	cfg := opts.Config.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	workdir := opts.Workdir
	if workdir == "" {
		workdir = "."
	}
	roles := opts.Roles
	if roles == nil {
		roles = handoff.DefaultRoleFiles()
	}
	path, err := roles.Path(workdir, opts.Role)
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, role: opts.Role, workdir: workdir, path: path,
		archive: opts.Archive, clk: opts.Clock, log: opts.Logger,
		observer: opts.Observer, onPoll: opts.OnPoll, attention: opts.OnAttention,
		hints: opts.Hints, turns: opts.Turns, hintPoll: opts.HintPoll, hintWindow: opts.HintWindow,
		output: opts.Output, outQuiet: opts.OutputQuiet, outEvery: opts.OutputEvery}
	if r.outQuiet <= 0 {
		r.outQuiet = DefaultOutputQuiet
	}
	if r.outEvery <= 0 {
		r.outEvery = cfg.Poll
	}
	if r.hintPoll <= 0 {
		r.hintPoll = DefaultHintPoll
	}
	if r.hintWindow <= 0 {
		r.hintWindow = DefaultHintWindow
	}
	if r.clk == nil {
		r.clk = clock.New()
	}
	if s, ok := r.clk.(Sleeper); ok {
		r.sleep = s
	} else {
		r.sleep = timerSleeper{r.clk}
	}
	if r.archive == nil {
		r.archive = responsefile.NewArchive(workdir, r.clk.Now())
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	return r, nil
}

func (r *run) wait(ctx context.Context, term handoff.Terminal) (Result, error) {
	start := r.clk.Now()
	core := NewCore(r.cfg, start)
	res := Result{DispatchedAt: start}
	if r.observer == nil {
		r.observer = func(e Entry) {
			r.log.Info("transition", "role", r.role, "from", e.From, "to", e.To,
				"event", e.Event, "status", e.Status, "elapsed", e.At.Sub(start))
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		at := r.clk.Now()
		var obs Observation
		var err error
		// File times come from a coarse clock that can lag the wall clock by
		// a few milliseconds: allow a second. (SendAndWait removes any
		// marker before sending, so one seen there is this turn's.)
		if r.turnNow && responsefile.TurnCompleteSince(r.path, start.Add(-time.Second)) {
			obs, err = r.lookTurn(at)
		} else {
			obs, err = r.look(ctx, term, at)
		}
		r.turnNow = false
		if err != nil {
			return res, err
		}
		p := Poll{At: at, Status: obs.Status, Detail: obs.Detail, File: obs.File, TurnComplete: obs.TurnCompleted}
		// answer and archived are the response, should this poll end the wait.
		var answer, archived string
		rd := core.Step(obs)
		if rd.Action == ConsumeFile {
			c, err := responsefile.Consume(r.path, r.role, r.cfg.MaxResponseBytes, r.archive)
			if err != nil {
				return res, fmt.Errorf("%s: %w", r.role, err)
			}
			p.Content, p.Archived, p.File = c.Content, c.Archived, FileReady
			answer, archived = c.Content, c.Archived
			if c.Blank {
				p.File = FileBlank
			}
			rd = core.FileConsumed(c.Blank)
		}
		res.Journal = append(res.Journal, rd.Transitions...)
		res.Elapsed = at.Sub(start)
		res.Polls++
		for _, e := range rd.Transitions {
			if e.Event == handoff.EventStartupTimeout {
				r.log.Warn("startup guard released: the agent was not seen working within the startup timeout; the idle grace starts now",
					"role", r.role, "status", e.Status, "elapsed", e.At.Sub(start), "startup_timeout", r.cfg.StartupTimeout())
			}
			r.observer(e)
		}
		p.Elapsed, p.N = res.Elapsed, res.Polls
		p.State, p.Transitions, p.Outcome, p.Deadline = rd.State, rd.Transitions, rd.Outcome, rd.Deadline
		if w := core.WindowEnd(); !w.IsZero() && w.After(at) {
			p.WindowLeft = w.Sub(at)
		}
		if rd.Action == FetchLastOutput {
			last, err := term.LastOutput(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				return res, fmt.Errorf("%s: no response file; fallback to the terminal's last output failed: %w", r.role, err)
			}
			p.LastOutput = last
			answer, archived = last, ""
		}
		if err := r.act(ctx, rd.Action, p); err != nil {
			return res, err
		}
		r.poll(p)

		if o := rd.Outcome; o != nil {
			if o.Done() {
				res.Content, res.Source, res.ArchivedPath = answer, Source(o.Name), archived
				return res, nil
			}
			from := core.State()
			if n := len(rd.Transitions); n > 0 {
				from = rd.Transitions[n-1].From
			}
			return res, &handoff.WaitError{Kind: o.Err, Role: r.role, State: from,
				LastStatus: p.Status, Elapsed: res.Elapsed, Detail: p.Detail}
		}

		wake := at.Add(r.cfg.Poll)
		if at.Before(r.hintUntil) {
			wake = at.Add(r.hintPoll)
		}
		if d := rd.Deadline; d.After(at) && d.Before(wake) {
			wake = d
		}
		if err := r.sleepUntil(ctx, at, wake); err != nil {
			return res, err
		}
	}
}

func (r *run) poll(p Poll) {
	if r.onPoll != nil {
		r.onPoll(p)
	}
}

// look gathers the raw facts of one observation: the terminal's status, then
// whether anything is at the response path. The error is ctx's, or a
// response path that cannot be looked at.
// lookTurn is an observation from the agent's completion hook: the turn is
// over (completed), and the response file is as it is; the screen is not
// read.
func (r *run) lookTurn(at time.Time) (Observation, error) {
	obs := Observation{At: at, Status: handoff.StatusCompleted, File: FileAbsent, TurnCompleted: true}
	present, err := responsefile.Present(r.path)
	if err != nil {
		return obs, fmt.Errorf("%s: %w", r.role, err)
	}
	if present {
		obs.File = FilePresent
	}
	return obs, nil
}

func (r *run) look(ctx context.Context, term handoff.Terminal, at time.Time) (Observation, error) {
	obs := Observation{At: at, File: FileAbsent}
	st, err := term.Status(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return obs, ctx.Err()
		}
		// A terminal that cannot be read is a terminal error.
		st, obs.Detail = handoff.StatusError, err.Error()
	}
	obs.Status = st
	if fp, ok := term.(handoff.Fingerprinter); ok && r.cfg.StartOnOutput && err == nil {
		if !r.fpSet {
			r.fp, r.fpSet = fp.Fingerprint(), true
		}
		obs.Changed = fp.Fingerprint() != r.fp
	}
	present, err := responsefile.Present(r.path)
	if err != nil {
		return obs, fmt.Errorf("%s: %w", r.role, err)
	}
	if present {
		obs.File = FilePresent
	}
	return obs, nil
}

// sleepUntil waits until wake, or, with hints, until a hint arrives: then
// until HintPoll after the last observation (at), so a burst of hints costs
// one observation per HintPoll, not one each.
func (r *run) sleepUntil(ctx context.Context, at, wake time.Time) error {
	if r.hints == nil && r.turns == nil && r.output == nil {
		return r.sleep.SleepUntil(ctx, wake)
	}
	// With output, a look is due OutputQuiet after the last output (each
	// new output pushes it back), but no later than OutputEvery after the
	// first output since the last look; the poll, the hints and the
	// deadlines (wake) still bound it.
	var firstOut, outDue time.Time
	for {
		next := wake
		if !outDue.IsZero() && outDue.Before(next) {
			next = outDue
		}
		d := r.clk.Until(next)
		if d <= 0 {
			return ctx.Err()
		}
		tm := r.clk.Timer(d)
		select {
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		case <-tm.C:
			return nil
		case _, ok := <-r.turns:
			tm.Stop()
			if !ok {
				r.turns = nil
				continue
			}
			// The agent says its turn is over: observe now.
			r.turnNow = true
			return nil
		case _, ok := <-r.output:
			tm.Stop()
			if !ok {
				r.output = nil
				continue
			}
			now := r.clk.Now()
			if firstOut.IsZero() {
				firstOut = now
			}
			outDue = now.Add(r.outQuiet)
			if limit := firstOut.Add(r.outEvery); limit.Before(outDue) {
				outDue = limit
			}
			if soon := at.Add(r.hintPoll); outDue.Before(soon) {
				outDue = soon
			}
		case _, ok := <-r.hints:
			tm.Stop()
			if !ok {
				r.hints = nil // the source ended: plain polling from here
				continue
			}
			r.hintUntil = r.clk.Now().Add(r.hintWindow)
			if soon := at.Add(r.hintPoll); soon.Before(wake) {
				wake = soon
			}
		}
	}
}

// act carries out the actions that do not feed the core back: a reminder,
// an automatic answer, a call for attention.
func (r *run) act(ctx context.Context, a Action, p Poll) error {
	switch a {
	case SendReminder:
		r.log.Warn("the grace ran out without a response file: reminding the agent", "role", r.role, "file", r.path, "elapsed", p.Elapsed)
		if err := r.sender.Send(ctx, handoff.Reminder(r.path)); err != nil {
			return fmt.Errorf("%s: send reminder: %w", r.role, err)
		}
	case AnswerPrompt:
		r.log.Info("the agent waits for the user: answering", "role", r.role, "keys", r.cfg.AutoAnswer, "elapsed", p.Elapsed)
		if err := r.keys.SendKeys(ctx, r.cfg.AutoAnswer); err != nil {
			return fmt.Errorf("%s: answer the agent's prompt: %w", r.role, err)
		}
	case NeedsAttention:
		if r.attention != nil {
			r.attention(p)
		} else {
			r.log.Warn("the agent waits for the user (a permission prompt or a question): answer it in the pane", "role", r.role, "elapsed", p.Elapsed)
		}
	}
	return nil
}

// settleFor waits up to d until term shows a ready prompt (idle/completed)
// on two observations in a row; d <= 0 does not wait.
func (r *run) settleFor(ctx context.Context, d time.Duration, term handoff.Terminal) error {
	if d <= 0 {
		return nil
	}
	step := min(r.cfg.Poll, 250*time.Millisecond)
	began := r.clk.Now()
	deadline := began.Add(d)
	quiet, waited := 0, false
	for {
		st, err := term.Status(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s: waiting for a ready prompt before sending: %w", r.role, err)
		}
		if quiet = quiet + 1; !st.Quiet() {
			quiet = 0
		}
		if quiet >= 2 {
			if waited {
				r.log.Info("the agent shows a ready prompt: sending", "role", r.role, "waited", r.clk.Since(began))
			}
			return nil
		}
		if !st.Quiet() && !waited {
			waited = true
			r.log.Info("the agent is busy: waiting for a ready prompt before sending", "role", r.role, "status", st, "settle", d)
		}
		now := r.clk.Now()
		if !now.Before(deadline) {
			return fmt.Errorf("%s: the agent showed no ready prompt within %v (last status %s); nothing was sent", r.role, d, st)
		}
		if err := r.sleep.SleepUntil(ctx, now.Add(min(step, deadline.Sub(now)))); err != nil {
			return err
		}
	}
}
