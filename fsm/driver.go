package fsm

import (
	"context"
	"crypto/rand"
	"errors"
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
	// adds no wait to the busy check (Config.BusyWait).
	Settle time.Duration
	// OnAttention, when set, is called once per dispatch when the agent
	// waits for the user and nothing answers automatically (a permission
	// prompt, a question); nil logs a warning on Logger.
	OnAttention func(Poll)
	// Wakeups wake the wait between polls: the response file's watch,
	// the pane's output, the agent's turn-end hook (see Wakeups).
	Wakeups
	// Resume continues a wait from a Checkpoint saved by OnCheckpoint,
	// usually in a process that died: nothing is sent, the core, the
	// journal and the archive's numbering go on from the checkpoint, and a
	// consume the crash cut short is finished first. The checkpoint's
	// Config is not in it: pass the same Config. Archive nil reopens the
	// checkpoint's archive folder. Use Wait (SendAndWait would send again).
	Resume *Checkpoint
	// OnCheckpoint, when set, receives the wait's state at the start, after
	// every poll that does not end it, and before every consume: persist
	// it to resume the wait after a crash. An error ends the wait.
	OnCheckpoint func(Checkpoint) error
	// WaitSlot: when another dispatch (another process, or another
	// goroutine of this one) holds the role's response file in Workdir,
	// wait until it is free instead of failing at once with an error
	// wrapping responsefile.ErrSlotBusy. See responsefile.Lock.
	// It also waits for the pane (see PaneDir) instead of failing with an
	// error wrapping panelock.ErrPaneBusy.
	WaitSlot bool
	// PaneDir is the folder of the pane locks and timed-out markers
	// (panelock.Dir() if ""). They are used when the terminal says which
	// pane it is (handoff.Identifier): one dispatch per pane at a time, in
	// this process or another, and a dispatch that timed out leaves the pane
	// marked busy with it until a later one sees the agent ready.
	PaneDir string
	// Receipt is the dispatch's receipt (handoff.Receipt): the heredoc
	// delimiter of its instruction and the first line its answer carries.
	// A response file carrying another receipt is an earlier prompt's
	// answer: archived, never returned (answer_mismatched). Empty,
	// SendAndWait takes the receipt of the prompt's own instruction for
	// this response file, if it carries one, or makes a new one from
	// crypto/rand; set it only to make a test deterministic, and never
	// reuse one. Empty, Wait (which sends nothing) accepts any receipt;
	// a resumed wait takes the checkpoint's.
	Receipt handoff.Receipt
}

// Wakeups are the signals that wake a wait before its next poll. None
// decides anything: each makes the wait look again sooner. WakeSources.Open
// builds the response file's; a tmux control client gives Output.
type Wakeups struct {
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
	// program through `handoff-fsm hook`). The wait then observes
	// without reading the screen: status completed, the response file as it
	// is. The screen is still polled at Config.Poll and guards everything
	// else (errors, a dead pane). A marker older than the dispatch is
	// ignored.
	Turns <-chan struct{}
	// TurnMarker is the file whose writing Turns reports: the wait takes a
	// completion-hook observation only when it was written after the
	// dispatch, and SendAndWait removes it before sending. ""
	// is responsefile.TurnMarker of the response file (Codex's notify program through `handoff-fsm hook`);
	// for Claude Code's Stop hook through `handoff-fsm hook --dir DIR` it is
	// DIR/stopped.json.
	TurnMarker string
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
	// Observation is what this poll saw: its time, the status (Detail: the
	// terminal's error when it could not be read; Unreadable: it could
	// not, and the wait tries again; Blank: the terminal was alive but
	// showed nothing, and then Status is "" unless the poll ended the wait
	// at the response deadline: the last status read, on which the core
	// decided), the file, the completion hook (TurnCompleted) and whether
	// the screen changed.
	Observation
	// Ready is what the core made of it: the transitions it fired, the
	// state after it, the action, how the dispatch ended when this poll
	// ended it, and the next deadline (zero once the wait is over).
	Ready
	Elapsed time.Duration // since dispatch
	N       int           // 1 for the first poll
	// Content is the response file's text when this poll read it (File is
	// FileReady or FileBlank); "" otherwise.
	Content string
	// Archived is where the file read by this poll was moved (a consumed
	// response or a blank file); "" otherwise.
	Archived string
	// Problem says why the thing at the response path could not be taken
	// (File is FileUnusable); "" otherwise.
	Problem responsefile.Problem
	// LastOutput is the terminal's last output when this poll fetched it
	// (fallback); "" otherwise.
	LastOutput string
	// WindowLeft is the time left in the startup window (AwaitingStart) or
	// the idle grace (IdleGrace, StartupTimeout); 0 in other states.
	WindowLeft time.Duration
	// Submission is what the agent's screen showed it took since the
	// prompt was sent, when this poll read an answer (the check at the
	// end); nil otherwise.
	Submission *handoff.Submission
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
	// Receipt is the dispatch's receipt ("" for a Wait given none).
	Receipt handoff.Receipt
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
//
// The role's response file is one slot: Wait holds an OS lock on it
// (responsefile.Lock) from start to end, so a second dispatch to the same
// role and Workdir, in this process or another, is refused at once with an
// error wrapping responsefile.ErrSlotBusy that names the holder's pid, or
// waits for the slot with Options.WaitSlot.
// A terminal that says which pane it is (handoff.Identifier) is one
// dispatch at a time in the same way (panelock.Acquire, ErrPaneBusy naming
// the holder's pid, role and start); a resumed wait on a pane that changed
// since the prompt was sent ends with a terminal error wrapping
// handoff.ErrPaneChanged.
func Wait(ctx context.Context, term handoff.Terminal, opts Options) (Result, error) {
	return dispatch(ctx, nil, term, "", opts)
}

// lock makes sure the response folder exists and takes the role's slot for
// the whole dispatch: one response file, one dispatch at a time.
func (r *run) lock(ctx context.Context) (*responsefile.Slot, error) {
	if err := responsefile.EnsureDir(r.Workdir); err != nil {
		return nil, err
	}
	slot, err := responsefile.Lock(ctx, r.path, r.Role, r.Workdir, r.WaitSlot)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Role, err)
	}
	return slot, nil
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
	case r.Config.Reminders > 0 && r.sender == nil:
		return fmt.Errorf("%w: reminders need a wait that can send to the agent (use SendAndWait)", handoff.ErrInvalidConfig)
	case r.Config.StartOnOutput && !isFingerprinter(term):
		return fmt.Errorf("%w: StartOnOutput needs a terminal that tells screens apart (handoff.Fingerprinter)", handoff.ErrInvalidConfig)
	case r.Config.AutoAnswer != "" && r.keys == nil:
		return fmt.Errorf("%w: automatic answers need a terminal that can type keys (handoff.KeySender)", handoff.ErrInvalidConfig)
	}
	return nil
}

// SendAndWait dispatches prompt to an agent and waits for its answer, in the
// spec's order: make sure the response folder exists, take the role's slot
// and the pane (see Options.WaitSlot), look at the agent and wait while it
// is busy (Config.BusyWait; an agent still busy after it fails with a
// *BusyError and nothing is sent), archive a stale response file (never
// delete it), send the prompt with the RESPONSE FILE INSTRUCTION block
// appended exactly once, then wait as Wait does. A wait that times out
// leaves the pane marked busy with its prompt (panelock.MarkTimedOut). With Options.Resume the prompt was sent by
// the process that saved the checkpoint: nothing is sent, the wait goes on
// (so an orchestrator makes the same call for a new and a resumed step).
func SendAndWait(ctx context.Context, s handoff.Sender, term handoff.Terminal, prompt string, opts Options) (Result, error) {
	return dispatch(ctx, s, term, prompt, opts)
}

// dispatch is Wait (s nil) and SendAndWait: it sends only with a sender
// and no checkpoint to resume from. The role's slot, then the pane, are held
// from before the look at the agent to the end of the wait.
func dispatch(ctx context.Context, s handoff.Sender, term handoff.Terminal, prompt string, opts Options) (Result, error) {
	r, err := prepare(opts)
	if err != nil {
		return Result{}, err
	}
	if err := r.canAct(s, term); err != nil {
		return Result{}, err
	}
	send := s != nil && opts.Resume == nil
	slot, err := r.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer slot.Release()
	pane, term, err := r.lockPane(ctx, term)
	if err != nil {
		return Result{}, err
	}
	defer pane.Release()
	if send {
		if err := r.ready(ctx, term, opts.Settle); err != nil {
			return Result{}, err
		}
		if err := r.send(ctx, s, prompt); err != nil {
			if !errors.Is(err, handoff.ErrTerminalGone) || ctx.Err() != nil {
				return Result{}, err
			}
			// The pane died while the prompt went in: the table ends the
			// dispatch as a terminal error, as the wait's next look would.
			term = lostTerminal{err}
		}
	}
	res, err := r.wait(ctx, term)
	r.after(res, err, prompt)
	return res, err
}

// send clears what an earlier turn left (the completion marker, a stale
// response file, archived) and sends the prompt with its instruction.
func (r *run) send(ctx context.Context, s handoff.Sender, prompt string) error {
	if err := responsefile.ClearMarker(r.TurnMarker); err != nil {
		return err
	}
	stale, err := responsefile.ClearStale(r.path, r.Role, r.Archive)
	if err != nil {
		return fmt.Errorf("clear stale response file: %w", err)
	}
	if stale != "" {
		r.Logger.Info("archived a stale response file before dispatch", "role", r.Role, "archived", stale)
	}
	if err := r.pickReceipt(prompt); err != nil {
		return err
	}
	text := handoff.WithInstruction(prompt, r.path, r.Receipt)
	if err := s.Send(ctx, text); err != nil {
		return fmt.Errorf("send prompt to %s: %w", r.Role, err)
	}
	r.sent = text
	return nil
}

// pickReceipt settles the receipt of a dispatch that sends its prompt: the
// one given, else the one of the prompt's own instruction for this file (so
// the prompt holds the block once), else a new random one.
func (r *run) pickReceipt(prompt string) error {
	if r.Receipt != "" {
		return nil
	}
	rc, err := handoff.ReceiptFor(prompt, r.path, rand.Reader)
	r.Receipt = rc
	return err
}

// run is one wait: its options with every default resolved (Config
// validated, Workdir, Roles, Archive, Clock, Logger, Receipt, TurnMarker
// set) and what the wait learns on its way.
type run struct {
	Options
	path string // the role's response file
	wake *waker
	// sender sends reminders, keys types automatic answers; nil when the
	// wait cannot (then the config may not ask for them).
	sender handoff.Sender
	keys   handoff.KeySender
	// fp is the first observation's screen fingerprint (StartOnOutput).
	fp    uint64
	fpSet bool
	// ident is the pane dispatched to (nil when the terminal does not say).
	ident *handoff.PaneIdentity
	// sent is the text this wait sent (the prompt with its instruction);
	// "" when it sent none (Wait, a resumed wait): the check at the end
	// then cannot tell.
	sent string
	// checker reads what the agent took (the check at the end); nil when
	// the terminal cannot.
	checker handoff.SubmissionChecker
}

// Checkpoint is what a wait needs to go on in another process: the core's
// snapshot, the journal so far and where the archive stands. It is plain
// data that serializes to JSON.
type Checkpoint struct {
	Core    Snapshot `json:"core"`
	Journal []Entry  `json:"journal"`
	// ArchiveDir and ArchiveSeq are the archive's folder and the last number
	// it used (responsefile.OpenArchive).
	ArchiveDir string `json:"archive_dir"`
	ArchiveSeq int    `json:"archive_seq"`
	// Pane is the pane the prompt was sent to, when the terminal says
	// (handoff.Identifier): a resumed wait whose pane changed ends at once
	// with a terminal error wrapping handoff.ErrPaneChanged.
	Pane *handoff.PaneIdentity `json:"pane,omitempty"`
	// Receipt is the dispatch's receipt; "" (a checkpoint of a version
	// before receipts, or a Wait given none) accepts any.
	Receipt handoff.Receipt `json:"receipt,omitempty"`
}

// prepare resolves opts' defaults into a run.
func prepare(opts Options) (*run, error) {
	r := &run{Options: opts}
	r.Config = opts.Config.WithDefaults()
	if err := r.Config.Validate(); err != nil {
		return nil, err
	}
	if r.Workdir == "" {
		r.Workdir = "."
	}
	if r.Roles == nil {
		r.Roles = handoff.DefaultRoleFiles()
	}
	path, err := r.Roles.Path(r.Workdir, r.Role)
	if err != nil {
		return nil, err
	}
	r.path = path
	if r.Receipt == "" && r.Resume != nil {
		r.Receipt = r.Resume.Receipt
	}
	if r.Receipt != "" {
		if err := r.Receipt.Validate(); err != nil {
			return nil, err
		}
	}
	if r.TurnMarker == "" {
		r.TurnMarker = responsefile.TurnMarker(path)
	}
	if r.Clock == nil {
		r.Clock = clock.New()
	}
	r.wake = newWaker(r.Wakeups, r.Config.Poll, r.Clock)
	if r.Resume != nil && r.Archive == nil && r.Resume.ArchiveDir == "" {
		return nil, fmt.Errorf("%w: the checkpoint has no archive folder", ErrBadSnapshot)
	}
	switch {
	case r.Archive != nil:
	case r.Resume != nil:
		r.Archive = responsefile.OpenArchive(r.Resume.ArchiveDir, r.Resume.ArchiveSeq)
	default:
		r.Archive = responsefile.NewArchive(r.Workdir, r.Clock.Now())
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	return r, nil
}

// wait is the driver loop: observe, record, act, end or sleep until the
// next look. The core decides; the loop only carries out.
func (r *run) wait(ctx context.Context, term handoff.Terminal) (Result, error) {
	r.checker, _ = term.(handoff.SubmissionChecker)
	core, res, err := r.start()
	if err != nil {
		return Result{}, err
	}
	res.Receipt = r.Receipt
	if r.Observer == nil {
		r.Observer = r.logTransition(res.DispatchedAt)
	}
	if err := r.begin(ctx, core, res); err != nil {
		return res, err
	}
	for {
		s, err := r.observe(ctx, core, term, &res)
		if err != nil {
			return res, err
		}
		r.record(core, &res, &s)
		if err := r.fallback(ctx, term, &s); err != nil {
			return res, err
		}
		if err := r.act(ctx, s.Action, s.Poll); err != nil {
			return res, err
		}
		if r.OnPoll != nil {
			r.OnPoll(s.Poll)
		}
		if s.Outcome != nil {
			return r.end(ctx, term, core, res, s)
		}
		if err := r.checkpoint(core, res); err != nil {
			return res, err
		}
		if err := r.wake.sleepUntil(ctx, s.At, r.wake.next(s.At, r.due(core, s.At))); err != nil {
			return res, err
		}
	}
}

// step is one look: what the caller sees of it (Poll), and what ends the
// wait should this look end it.
type step struct {
	Poll
	// cause is the terminal's error, or why the thing at the response path
	// cannot be an answer: a failure's cause.
	cause error
	// answer and archived are the response and where its file went.
	answer, archived string
}

// logTransition is the default Observer: each transition at Info level.
func (r *run) logTransition(start time.Time) func(Entry) {
	return func(e Entry) {
		r.Logger.Info("transition", "role", r.Role, "from", e.From, "to", e.To,
			"event", e.Event, "status", e.Status, "elapsed", e.At.Sub(start))
	}
}

// begin checkpoints a new wait. A resumed one first finishes the consume a
// crash cut short (the first look does), or waits for the look that was due
// when the snapshot was taken.
func (r *run) begin(ctx context.Context, core *Core, res Result) error {
	if r.Resume == nil {
		return r.checkpoint(core, res)
	}
	if _, pending := core.Consuming(); pending {
		return nil
	}
	return r.wake.sleep.SleepUntil(ctx, r.due(core, core.Snapshot().LastAt))
}

// observe takes one look and steps the core on it: the terminal's status
// (or the agent's turn-end hook) and the response file, then the file
// consumed when the core asks for it. A resumed wait whose consume a crash
// cut short finishes it instead.
func (r *run) observe(ctx context.Context, core *Core, term handoff.Terminal, res *Result) (step, error) {
	if obs, ok := core.Consuming(); ok {
		// The poll that asked for the consume is complete once the file
		// is consumed.
		s := step{Poll: Poll{Observation: Observation{At: obs.At, Status: obs.Status, File: FilePresent}}}
		c, err := responsefile.Recover(r.path, r.Role, r.Config.MaxResponseBytes, r.Receipt, r.Archive)
		return s, r.consumed(ctx, core, &s, c, err)
	}
	if err := ctx.Err(); err != nil {
		return step{}, err
	}
	at := r.Clock.Now()
	var s step
	var err error
	// File times come from a coarse clock that can lag the wall clock by a
	// few milliseconds: allow a second. (SendAndWait removes any marker
	// before sending, so one seen is this turn's.)
	if r.wake.tookTurn() && responsefile.MarkerSince(r.TurnMarker, res.DispatchedAt.Add(-time.Second)) {
		s.Observation, err = r.lookTurn(at)
	} else {
		s.Observation, s.cause, err = r.look(ctx, term, at)
	}
	if err != nil {
		return s, err
	}
	s.Ready = core.Step(s.Observation)
	if s.Blank && (s.Outcome != nil || s.Action == ConsumeFile) {
		s.Status = core.Snapshot().LastStatus
	}
	res.Polls++
	if s.Action == ConsumeFile {
		// Persisted first, so a crash during the consume resumes by
		// finishing it (responsefile.Recover).
		if err := r.checkpoint(core, *res); err != nil {
			return s, err
		}
		c, err := responsefile.Consume(r.path, r.Role, r.Config.MaxResponseBytes, r.Receipt, r.Archive)
		if err := r.consumed(ctx, core, &s, c, err); err != nil {
			return s, err
		}
	}
	if s.Unreadable && s.Outcome == nil {
		r.Logger.Warn("the terminal could not be read; trying again on the next poll",
			"role", r.Role, "failures_in_a_row", core.Snapshot().PollFailures, "max", r.Config.MaxPollFailures, "error", s.Detail)
	}
	return s, nil
}

// record adds the look's transitions to the journal and tells the Observer
// (warning when the startup guard was released), and completes the Poll.
func (r *run) record(core *Core, res *Result, s *step) {
	start := res.DispatchedAt
	res.Journal = append(res.Journal, s.Transitions...)
	res.Elapsed = s.At.Sub(start)
	for _, e := range s.Transitions {
		if e.Event == handoff.EventStartupTimeout {
			r.Logger.Warn("startup guard released: the agent was not seen working within the startup timeout; the idle grace starts now",
				"role", r.Role, "status", e.Status, "elapsed", e.At.Sub(start), "startup_timeout", r.Config.StartupTimeout())
		}
		r.Observer(e)
	}
	s.Elapsed, s.N = res.Elapsed, res.Polls
	if w := core.WindowEnd(); !w.IsZero() && w.After(s.At) {
		s.WindowLeft = w.Sub(s.At)
	}
}

// fallback fetches the terminal's last output when the core takes it as the
// response (strict handoff off).
func (r *run) fallback(ctx context.Context, term handoff.Terminal, s *step) error {
	if s.Action != FetchLastOutput {
		return nil
	}
	last, err := term.LastOutput(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: no response file; fallback to the terminal's last output failed: %w", r.Role, err)
	}
	s.LastOutput = last
	s.answer, s.archived = last, ""
	return nil
}

// end is the wait's ending at the table's outcome: the response, or a
// *handoff.WaitError naming the state it failed in (and, when the prompt
// this wait sent never left the agent's composer, saying so: lastLook).
func (r *run) end(ctx context.Context, term handoff.Terminal, core *Core, res Result, s step) (Result, error) {
	o := s.Outcome
	if o.Done() {
		res.Content, res.Source, res.ArchivedPath = s.answer, Source(o.Name), s.archived
		return res, nil
	}
	from := core.State()
	if n := len(s.Transitions); n > 0 {
		from = s.Transitions[n-1].From
	}
	we := &handoff.WaitError{Kind: o.Err, Role: r.Role, State: from,
		LastStatus: s.Status, Elapsed: res.Elapsed, Detail: s.Detail}
	if o.Err == handoff.ErrTerminalError || o.Err == handoff.ErrResponseFile {
		we.Cause = s.cause
	}
	if o.Err != handoff.ErrPromptNotTaken && !errors.Is(s.cause, handoff.ErrTerminalGone) {
		// (The end check saw something submitted; a gone pane shows
		// nothing.)
		we.Unsent = r.lastLook(ctx, term)
	}
	return res, we
}

// lastLookWait bounds the last look at a failed dispatch's agent: a
// terminal that does not answer must not hold the failure back.
const lastLookWait = 10 * time.Second

// lastLook reads the agent's composer once more as the dispatch fails
// (handoff.UnsentChecker): what it shows when it still holds the prompt
// this wait sent, unsent, with no turn; "" otherwise, when this wait sent
// nothing (Wait, a resumed wait) or the terminal cannot tell. The engine
// learns no provider's screens: the terminal reads them. Not asked when
// the end check saw the agent take something (prompt_not_taken) or the
// pane is gone.
func (r *run) lastLook(ctx context.Context, term handoff.Terminal) string {
	uc, ok := term.(handoff.UnsentChecker)
	if !ok || r.sent == "" || ctx.Err() != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, lastLookWait)
	defer cancel()
	seen, unsent, err := uc.Unsent(ctx, r.sent)
	if err != nil {
		r.Logger.Warn("the last look at the agent's composer failed; the error cannot say whether the prompt left it", "role", r.Role, "error", err)
		return ""
	}
	if !unsent {
		return ""
	}
	if seen == "" {
		seen = "the prompt"
	}
	return seen
}

// start makes the core: a new one dispatched now, or the one the resumed
// checkpoint holds, with the result so far.
func (r *run) start() (*Core, Result, error) {
	cp := r.Resume
	if cp == nil {
		now := r.Clock.Now()
		return NewCore(r.Config, now), Result{DispatchedAt: now}, nil
	}
	core, err := Resume(r.Config, cp.Core)
	if err != nil {
		return nil, Result{}, err
	}
	if core.State().Final() {
		return nil, Result{}, fmt.Errorf("%w: the wait is over (%s); there is nothing to resume", ErrBadSnapshot, core.State())
	}
	s := cp.Core
	res := Result{DispatchedAt: s.DispatchedAt, Journal: append([]Entry(nil), cp.Journal...), Polls: s.Polls}
	if !s.LastAt.IsZero() {
		res.Elapsed = s.LastAt.Sub(s.DispatchedAt)
	}
	return core, res, nil
}

// due is the latest next look after a look at at: one poll interval later,
// or at the next deadline if that comes first.
func (r *run) due(core *Core, at time.Time) time.Time {
	if at.IsZero() {
		return r.Clock.Now()
	}
	due := at.Add(r.Config.Poll)
	if d := core.Deadline(); d.After(at) && d.Before(due) {
		due = d
	}
	return due
}

// consumed reports to the core what Consume (or Recover) found and notes it
// in s. A thing at the path that cannot be used as an answer
// (handoff.ErrResponseFile) is an observation the table ends on, with err as
// the failure's cause; any other error (the archive cannot be written) ends
// the wait as an error.
func (r *run) consumed(ctx context.Context, core *Core, s *step, c responsefile.Consumed, err error) error {
	switch {
	case errors.Is(err, handoff.ErrResponseFile):
		s.File, s.Detail, s.Problem = FileUnusable, err.Error(), responsefile.ProblemOf(err)
		s.Ready, s.cause = core.FileConsumed(FileUnusable), err
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", r.Role, err)
	}
	s.Content, s.Archived, s.File = c.Content, c.Archived, FileReady
	switch {
	case c.Mismatched:
		s.File = FileMismatched
		r.fpSet = false
		r.Logger.Warn("the response file answers another prompt (its receipt is not this dispatch's): archived, not returned; waiting for the agent to answer this one",
			"role", r.Role, "receipt", c.Receipt, "want", r.Receipt, "archived", c.Archived)
	case c.Blank:
		s.File = FileBlank
	}
	var sub handoff.Submission
	if s.File == FileReady {
		sub = r.submission(ctx, core)
		s.Submission = &sub
	}
	s.Ready, s.cause = core.FileRead(s.File, sub), nil
	if p := sub.Problem(); p != "" && s.Outcome != nil && !s.Outcome.Done() {
		s.Detail = "the agent's screen shows " + p + "; its answer is archived as " + c.Archived
	}
	s.answer, s.archived = c.Answer, c.Archived
	return nil
}

// submission is the check at the end: what the agent's screen shows it
// took since the prompt was sent, read now that the dispatch would end
// Done. It cannot tell when the wait sent reminders (more user messages of
// its own) or the terminal cannot read it; the terminal is asked with ""
// when this wait sent nothing (Wait, a resumed wait): the tmux driver
// cannot tell then, a replayed trace gives what it recorded.
func (r *run) submission(ctx context.Context, core *Core) handoff.Submission {
	switch {
	case r.checker == nil:
		return handoff.CannotTell("the terminal cannot read the agent's user messages")
	case core.Snapshot().Reminders > 0:
		return handoff.CannotTell("the wait sent reminders, user messages of its own")
	}
	sub, err := r.checker.Submission(ctx, r.sent)
	if err != nil {
		r.Logger.Warn("the check at the end could not read the agent's screen; the answer is taken", "role", r.Role, "error", err)
		return handoff.CannotTell(err.Error())
	}
	return sub
}

// checkpoint hands the wait's state to Options.OnCheckpoint.
func (r *run) checkpoint(core *Core, res Result) error {
	if r.OnCheckpoint == nil {
		return nil
	}
	cp := Checkpoint{Core: core.Snapshot(), Journal: append([]Entry{}, res.Journal...),
		ArchiveDir: r.Archive.Dir(), ArchiveSeq: r.Archive.Seq(), Receipt: r.Receipt, Pane: r.ident}
	if err := r.OnCheckpoint(cp); err != nil {
		return fmt.Errorf("%s: save the wait's checkpoint: %w", r.Role, err)
	}
	return nil
}

// lookTurn is an observation from the agent's completion hook: the turn is
// over (completed), and the response file is as it is; the screen is not
// read.
func (r *run) lookTurn(at time.Time) (Observation, error) {
	obs := Observation{At: at, Status: handoff.StatusCompleted, File: FileAbsent, TurnCompleted: true}
	present, err := responsefile.Present(r.path)
	if err != nil {
		return obs, fmt.Errorf("%s: %w", r.Role, err)
	}
	if present {
		obs.File = FilePresent
	}
	return obs, nil
}

// look gathers the raw facts of one observation: the terminal's status, then
// whether anything is at the response path. cause is the terminal's error,
// if it gave one. The error is ctx's, or a response path that cannot be
// looked at.
func (r *run) look(ctx context.Context, term handoff.Terminal, at time.Time) (obs Observation, cause, err error) {
	obs = Observation{At: at, File: FileAbsent}
	st, cause := term.Status(ctx)
	if cause != nil {
		if ctx.Err() != nil {
			return obs, nil, ctx.Err()
		}
		obs.Detail = cause.Error()
		if errors.Is(cause, handoff.ErrNothingShown) && !errors.Is(cause, handoff.ErrTerminalGone) {
			// Alive and blank: no status, but the file is looked for (the
			// response deadline may decide on the last status and it).
			obs.Status, obs.Blank = "", true
			return r.lookForFile(obs, cause)
		}
		if st != handoff.StatusError && !errors.Is(cause, handoff.ErrTerminalGone) {
			// One failed look (tmux busy, a call that timed out): the core
			// counts it and the next poll tries again.
			obs.Status, obs.Unreadable = handoff.StatusError, true
			return obs, cause, nil
		}
		// Gone, or an error on the agent's screen: a terminal error.
		st = handoff.StatusError
	}
	obs.Status = st
	if ex, ok := term.(handoff.Explainer); ok && !errors.Is(cause, handoff.ErrTerminalGone) {
		if c, ok := ex.LastClassification(); ok {
			obs.Classification = &c
		}
	}
	if fp, ok := term.(handoff.Fingerprinter); ok && r.Config.StartOnOutput && err == nil {
		if !r.fpSet {
			r.fp, r.fpSet = fp.Fingerprint(), true
		}
		obs.Changed = fp.Fingerprint() != r.fp
	}
	return r.lookForFile(obs, cause)
}

// lookForFile completes obs with whether the response file is there.
func (r *run) lookForFile(obs Observation, cause error) (Observation, error, error) {
	present, err := responsefile.Present(r.path)
	if err != nil {
		return obs, cause, fmt.Errorf("%s: %w", r.Role, err)
	}
	if present {
		obs.File = FilePresent
	}
	return obs, cause, nil
}

// act carries out the actions that do not feed the core back: a reminder,
// an automatic answer, a call for attention.
func (r *run) act(ctx context.Context, a Action, p Poll) error {
	switch a {
	case SendReminder:
		r.Logger.Warn("the grace ran out without a response file: reminding the agent", "role", r.Role, "file", r.path, "elapsed", p.Elapsed)
		if err := r.sender.Send(ctx, handoff.Reminder(r.path, r.Receipt)); err != nil {
			return fmt.Errorf("%s: send reminder: %w", r.Role, err)
		}
	case AnswerPrompt:
		r.Logger.Info("the agent waits for the user: answering", "role", r.Role, "keys", r.Config.AutoAnswer, "elapsed", p.Elapsed)
		if err := r.keys.SendKeys(ctx, r.Config.AutoAnswer); err != nil {
			return fmt.Errorf("%s: answer the agent's prompt: %w", r.Role, err)
		}
	case NeedsAttention:
		if r.OnAttention != nil {
			r.OnAttention(p)
		} else {
			r.Logger.Warn("the agent waits for the user (a permission prompt or a question): answer it in the pane", "role", r.Role, "elapsed", p.Elapsed)
		}
	}
	return nil
}
