package fsm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/looplab/fsm"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// FileState is what was at the response file's path at one observation.
type FileState string

// The file states. The driver reports the first two, the raw fact; the
// others say what consuming the file found (Core.FileConsumed takes them;
// they appear in Poll).
const (
	// FileAbsent: nothing at the path.
	FileAbsent FileState = "absent"
	// FilePresent: something is at the path, not read (the agent may still
	// be writing it while it works).
	FilePresent FileState = "present"
	// FileBlank: the file was consumed and held nothing but white space; it
	// is archived and counts as absent.
	FileBlank FileState = "blank"
	// FileReady: the file was consumed while the agent was quiet and holds
	// an answer (with the dispatch's receipt, or none).
	FileReady FileState = "ready"
	// FileMismatched: the file was consumed and carries another dispatch's
	// receipt (handoff.Receipt): an answer to an earlier prompt. It is
	// archived and is not this dispatch's answer.
	FileMismatched FileState = "mismatched"
	// FileUnusable: the agent was quiet, and what is at the path cannot be
	// consumed (a symlink, not a regular file, too large, unreadable); it
	// was left in place.
	FileUnusable FileState = "unusable"
)

// Observation is the raw facts of one look at the agent, taken at At: the
// terminal's status and whether a file is at the response path. The core
// decides what they mean.
type Observation struct {
	At     time.Time
	Status handoff.Status
	// Detail is what the terminal said beyond the status (an error message
	// when it could not be read); it ends up in a WaitError.
	Detail string
	File   FileState
	// Changed: the screen differs from the first observation's (reported
	// only with Config.StartOnOutput).
	Changed bool
	// TurnCompleted: the observation is the agent's completion hook saying
	// its turn is over (Status is then completed); the screen was not read.
	TurnCompleted bool
	// Unreadable: the terminal could not be read at this look, but is not
	// gone (tmux busy, a call that timed out); Status is meaningless and
	// Detail says why. It is not an observation of the agent: it neither
	// starts, continues nor breaks anything, and only counts towards
	// Config.MaxPollFailures.
	Unreadable bool
	// Classification is the classifier's whole reading behind Status (its
	// reason and signals) when the terminal gives it (handoff.Explainer);
	// nil otherwise. Evidence only: the core decides on Status.
	Classification *handoff.Classification
	// Blank: the terminal was alive but showed nothing (a full-screen
	// agent between frames, handoff.ErrNothingShown); Status is
	// meaningless. It is no observation and no failed look: it changes
	// nothing, not even the count of failed looks, until the response
	// deadline, where the core decides on the last status it read.
	Blank bool
}

// Entry is one transition of the journal: at At, Event (seen with terminal
// status Status) moved the dispatch From one state To another.
type Entry struct {
	At     time.Time      `json:"at"`
	From   handoff.State  `json:"from"`
	To     handoff.State  `json:"to"`
	Event  handoff.Event  `json:"event"`
	Status handoff.Status `json:"status"`
}

// Action is what the core asks the driver to do before it can go on.
type Action string

// The actions.
const (
	// ConsumeFile: the agent is quiet and a file is at the response path:
	// take it away (responsefile.Consume: archived before it is read) and
	// report what it held with Core.FileConsumed (an answer, a blank file,
	// or another dispatch's answer).
	ConsumeFile Action = "consume_file"
	// FetchLastOutput: the dispatch is done by fallback; the response is
	// the terminal's last output.
	FetchLastOutput Action = "fetch_last_output"
	// SendReminder: the grace ran out without a file and a reminder is left
	// (Config.Reminders): send the agent handoff.Reminder(path).
	SendReminder Action = "send_reminder"
	// AnswerPrompt: the agent waits for the user; type Config.AutoAnswer.
	AnswerPrompt Action = "answer_prompt"
	// NeedsAttention: the agent waits for the user and nothing answers
	// automatically; tell a person (once per dispatch).
	NeedsAttention Action = "needs_attention"
)

// Actions lists every action the core can ask for, for the diagram.
func Actions() []Action {
	return []Action{ConsumeFile, FetchLastOutput, SendReminder, AnswerPrompt, NeedsAttention}
}

// Describe says in one line what the driver does for the action.
func (a Action) Describe() string {
	switch a {
	case ConsumeFile:
		return "quiet with a file at the path: move it into the archive (synced), read it from there, report what it held (FileConsumed) — then `file_ready`; a blank file counts as none; a file carrying another dispatch's receipt is `answer_mismatched`"
	case FetchLastOutput:
		return "on `fallback`: the response is the terminal's last output"
	case SendReminder:
		return "on `remind`: send the agent a short reminder naming its response file (Config.Reminders)"
	case AnswerPrompt:
		return "waiting_user_answer with automatic answers configured and left: type Config.AutoAnswer (cooldown Config.AnswerCooldown; after Config.MaxAnswers, `needs_user`)"
	case NeedsAttention:
		return "waiting_user_answer and nothing answers automatically: tell a person, once per dispatch; the wait goes on"
	}
	return "unknown action"
}

// Ready is what one step did and what the driver must do next (etcd-raft's
// Ready): the transitions fired, at most one action, the ending once there
// is one, and when to observe again.
type Ready struct {
	// Transitions fired, in order (often none, sometimes two: a quiet
	// observation at the response deadline in AwaitingStart releases the
	// guard and ends the grace at once).
	Transitions []Entry
	// Action is what to do now; "" for nothing.
	Action Action
	// Outcome is how the dispatch ended, read off the table row that ended
	// it; nil while it goes on.
	Outcome *handoff.Outcome
	// State is the state after the step.
	State handoff.State
	// Deadline is the earliest time at which the core would decide something
	// without a change on the terminal (startup timeout, grace expiry,
	// response timeout); zero once the wait is over. The driver observes
	// again at the deadline, so that it is decided on an observation taken
	// then, not one poll interval later. After an unreadable look it may
	// have passed undecided; the next poll decides it.
	Deadline time.Time
}

// Snapshot is everything the core needs to continue a wait: plain values
// that serialize to JSON, so a wait can be saved and resumed.
type Snapshot struct {
	State        handoff.State `json:"state"`
	DispatchedAt time.Time     `json:"dispatched_at"`
	// IdleSince is when the current run of consecutive quiet observations
	// began (IdleGrace, StartupTimeout); zero when the grace is not running.
	IdleSince  time.Time      `json:"idle_since,omitzero"`
	LastStatus handoff.Status `json:"last_status,omitempty"`
	// LastAt is the time of the last observation; zero before the first.
	LastAt time.Time `json:"last_at,omitzero"`
	Polls  int       `json:"polls"`
	// PollFailures counts the unreadable observations in a row so far.
	PollFailures int `json:"poll_failures,omitempty"`
	// Consuming is the observation that asked for ConsumeFile and still
	// waits for FileConsumed (a snapshot taken between the two, as the
	// driver persists one before it consumes); nil otherwise.
	Consuming *Consuming `json:"consuming,omitempty"`
	// End is the event that finished the wait; empty while it runs.
	End handoff.Event `json:"end,omitempty"`
	// GuardSince is when the startup guard was last armed again, by a
	// reminder or by another dispatch's answer; zero means at dispatch.
	GuardSince time.Time `json:"guard_since,omitzero"`
	// Reminders is how many reminders were sent.
	Reminders int `json:"reminders,omitempty"`
	// Answers is how many automatic answers were typed, the last at
	// LastAnswer.
	Answers    int       `json:"answers,omitempty"`
	LastAnswer time.Time `json:"last_answer,omitzero"`
	// Attention: the agent was reported as waiting for the user.
	Attention bool `json:"attention,omitempty"`
}

// Consuming is an observation waiting for Core.FileConsumed: quiet, with a
// file at the response path.
type Consuming struct {
	At     time.Time      `json:"at"`
	Status handoff.Status `json:"status"`
}

// Core is the pure state machine of one wait. The current state lives in a
// looplab/fsm machine built from handoff.Transitions(), so only the moves
// the table allows can happen. A Core is not safe for concurrent use.
type Core struct {
	cfg  handoff.Config
	snap Snapshot
	m    *fsm.FSM
	// consuming is the observation waiting for FileConsumed; nil otherwise.
	consuming *Observation
	// action is what the rules of this step ask the driver to do.
	action Action
}

// NewCore starts the state machine for a prompt dispatched at dispatchedAt,
// in AwaitingStart. Zero fields of cfg are the defaults; the rest must be
// valid (handoff.Config.Validate).
func NewCore(cfg handoff.Config, dispatchedAt time.Time) *Core {
	return newCore(cfg.WithDefaults(), Snapshot{State: handoff.AwaitingStart, DispatchedAt: dispatchedAt})
}

// ErrBadSnapshot is wrapped by Resume's errors.
var ErrBadSnapshot = errors.New("invalid snapshot")

// Resume continues a wait from a Snapshot taken with Core.Snapshot.
func Resume(cfg handoff.Config, s Snapshot) (*Core, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	known := false
	for _, st := range handoff.States() {
		known = known || st == s.State
	}
	switch {
	case !known:
		return nil, fmt.Errorf("%w: unknown state %q", ErrBadSnapshot, s.State)
	case s.DispatchedAt.IsZero():
		return nil, fmt.Errorf("%w: no dispatch time", ErrBadSnapshot)
	case (s.State == handoff.IdleGrace || s.State == handoff.StartupTimeout) && s.IdleSince.IsZero():
		return nil, fmt.Errorf("%w: state %s needs idle_since", ErrBadSnapshot, s.State)
	case s.Polls < 0 || s.Reminders < 0 || s.Answers < 0:
		return nil, fmt.Errorf("%w: negative count (polls %d, reminders %d, answers %d)", ErrBadSnapshot, s.Polls, s.Reminders, s.Answers)
	case s.PollFailures < 0:
		return nil, fmt.Errorf("%w: negative poll failure count", ErrBadSnapshot)
	case s.State.Final() && !endsIn(s.End, s.State):
		return nil, fmt.Errorf("%w: state %s cannot end with event %q", ErrBadSnapshot, s.State, s.End)
	case !s.State.Final() && s.End != "":
		return nil, fmt.Errorf("%w: state %s is not final but has end event %q", ErrBadSnapshot, s.State, s.End)
	case s.Consuming != nil && (s.State.Final() || !s.Consuming.Status.Quiet() || s.Consuming.At.IsZero()):
		return nil, fmt.Errorf("%w: consuming (a quiet observation with a time) in state %s", ErrBadSnapshot, s.State)
	}
	c := newCore(cfg.WithDefaults(), s)
	if p := s.Consuming; p != nil {
		c.consuming = &Observation{At: p.At, Status: p.Status, File: FilePresent}
	}
	c.snap.Consuming = nil
	return c, nil
}

// endsIn reports whether the table has a final row for ev into st.
func endsIn(ev handoff.Event, st handoff.State) bool {
	for _, t := range handoff.Transitions() {
		if t.Event == ev && t.To == st && t.Outcome != nil {
			return true
		}
	}
	return false
}

func newCore(cfg handoff.Config, s Snapshot) *Core {
	var events []fsm.EventDesc
	for _, t := range handoff.Transitions() {
		src := make([]string, len(t.From))
		for i, f := range t.From {
			src[i] = string(f)
		}
		events = append(events, fsm.EventDesc{Name: string(t.Event), Src: src, Dst: string(t.To)})
	}
	return &Core{cfg: cfg, snap: s, m: fsm.NewFSM(string(s.State), events, nil)}
}

// Snapshot returns the core's state as plain values (see Resume).
func (c *Core) Snapshot() Snapshot {
	s := c.snap
	s.State = c.State()
	if o := c.consuming; o != nil {
		s.Consuming = &Consuming{At: o.At, Status: o.Status}
	}
	return s
}

// Consuming returns the observation that asked for ConsumeFile and waits
// for FileConsumed; ok is false when there is none.
func (c *Core) Consuming() (o Observation, ok bool) {
	if c.consuming == nil {
		return Observation{}, false
	}
	return *c.consuming, true
}

// State is the current state.
func (c *Core) State() handoff.State { return handoff.State(c.m.Current()) }

// ResponseDeadline is when the response timeout passes.
func (c *Core) ResponseDeadline() time.Time {
	return c.snap.DispatchedAt.Add(c.cfg.ResponseTimeout)
}

// startupDeadline is when the startup guard is released: the startup
// timeout is the idle grace (no knob of its own: decision D2 of the
// startup guard's design), counted from the dispatch or from the last
// reminder.
func (c *Core) startupDeadline() time.Time {
	armed := c.snap.DispatchedAt
	if !c.snap.GuardSince.IsZero() {
		armed = c.snap.GuardSince
	}
	return armed.Add(c.cfg.StartupTimeout())
}

// WindowEnd is when the current window closes: the startup timeout in
// AwaitingStart, the grace in IdleGrace and StartupTimeout; zero in other
// states. The response timeout may close it earlier (see Deadline).
func (c *Core) WindowEnd() time.Time {
	switch c.State() {
	case handoff.AwaitingStart:
		return c.startupDeadline()
	case handoff.IdleGrace, handoff.StartupTimeout:
		return c.snap.IdleSince.Add(c.cfg.IdleGrace)
	}
	return time.Time{}
}

// Deadline is the next time the core decides something on its own: the
// earlier of WindowEnd and the response deadline; zero once final.
func (c *Core) Deadline() time.Time {
	if c.State().Final() {
		return time.Time{}
	}
	d := c.ResponseDeadline()
	if w := c.WindowEnd(); !w.IsZero() && w.Before(d) {
		d = w
	}
	return d
}

// Step feeds one observation to the core. The rules, in order (the
// specification's poll requirement, as docs/behaviour.md restates it):
//  0. an unreadable terminal is no observation: it changes nothing, unless
//     it is the Config.MaxPollFailures-th in a row or comes at or after the
//     response deadline (there is no later poll to wait for): then → Failed
//     (terminal error), with its Detail. A blank terminal (alive, showing
//     nothing) is no observation either and never a failure: before the
//     response deadline it changes nothing; at or after it, it is read as
//     the last status read (busy when none was: the agent never showed
//     anything since the prompt), so the usual deadline rules end the
//     wait;
//  1. status error → Failed (terminal error), before anything else;
//  2. quiet (idle/completed) with a file at the path → ConsumeFile: the
//     driver takes it away and says with FileConsumed what it held; an
//     answer → Done from the file, a blank file counts as none (rule 4);
//     another dispatch's answer (its receipt is not ours) → AwaitingStart
//     with the startup guard armed again (the agent was busy with another
//     prompt; ours may only now start), then rule 4 as for no file;
//  3. any other status → the agent has started (→ Working, the grace
//     resets); at or after the response deadline → Failed (timeout);
//  4. quiet without a file: AwaitingStart ignores it until the startup
//     timeout releases the guard (→ StartupTimeout, the grace starts now);
//     Working → IdleGrace (the grace starts now); once the grace has run out
//     on consecutive quiet observations, or the response deadline has
//     passed, strict → Failed (no response file), else Done by fallback
//     (FetchLastOutput) — unless a reminder is left (Config.Reminders):
//     then SendReminder, and back to AwaitingStart with the guard re-armed;
//  5. waiting_user_answer (after rule 3): AnswerPrompt while automatic
//     answers are left (Config.AutoAnswer, AnswerCooldown, MaxAnswers),
//     Failed (needs the user) once they ran out; without AutoAnswer,
//     NeedsAttention once and the wait goes on.
//
// Stepping a finished core changes nothing and repeats its ending.
// Observations are expected in time order, and after ConsumeFile the next
// call is FileConsumed.
func (c *Core) Step(obs Observation) Ready {
	if c.State().Final() {
		return c.ready(nil)
	}
	c.consuming = nil
	c.snap.Polls++
	c.snap.LastAt = obs.At
	if obs.Blank {
		if obs.At.Before(c.ResponseDeadline()) {
			return c.ready(nil)
		}
		obs.Blank, obs.Unreadable, obs.Detail = false, false, ""
		obs.Status = c.snap.LastStatus
		if obs.Status == "" {
			obs.Status = handoff.StatusProcessing
		}
	}
	if obs.Unreadable {
		c.snap.PollFailures++
		if c.snap.PollFailures < c.cfg.MaxPollFailures && obs.At.Before(c.ResponseDeadline()) {
			return c.ready(nil)
		}
		obs.Status = handoff.StatusError
		c.snap.LastStatus = obs.Status
		return c.ready(c.fire(obs, nil, handoff.EventTerminalError))
	}
	c.snap.PollFailures = 0
	c.snap.LastStatus = obs.Status

	switch {
	case obs.Status == handoff.StatusError:
		return c.ready(c.fire(obs, nil, handoff.EventTerminalError))
	case obs.Status.Quiet() && obs.File != FileAbsent:
		c.consuming = &obs
		c.action = ConsumeFile
		return c.ready(nil)
	case obs.Status == handoff.StatusWaitingUserAnswer:
		return c.ready(c.waitingUser(obs, c.active(obs)))
	case !obs.Status.Quiet():
		return c.ready(c.active(obs))
	}
	return c.ready(c.quiet(obs))
}

// FileConsumed completes the observation that asked for ConsumeFile with
// what the file held: FileReady, an answer; FileBlank, nothing but white
// space (it counts as no file); FileMismatched, another dispatch's answer;
// FileUnusable, a thing at the path that could not be consumed
// (responsefile's ErrResponseFile): the dispatch fails, and the thing stays
// where it is. Without a pending ConsumeFile, or with another FileState, it
// changes nothing.
func (c *Core) FileConsumed(f FileState) Ready {
	return c.FileRead(f, handoff.Submission{})
}

// FileRead is FileConsumed with what the agent's screen shows it took
// since the prompt was submitted, read by the driver at this moment (the
// check at the end): an answer (FileReady) whose screen shows the prompt
// was not taken whole and once (sub.Problem) fails the dispatch
// (prompt_not_taken) instead of ending it Done. A Submission that cannot
// tell, or the zero one, decides nothing.
func (c *Core) FileRead(f FileState, sub handoff.Submission) Ready {
	obs := c.consuming
	c.consuming = nil
	switch {
	case obs == nil || c.State().Final():
		return c.ready(nil)
	case f == FileReady && sub.Problem() != "":
		return c.ready(c.fire(*obs, nil, handoff.EventPromptNotTaken))
	case f == FileReady:
		return c.ready(c.fire(*obs, nil, handoff.EventFileReady))
	case f == FileBlank:
		return c.ready(c.quiet(*obs))
	case f == FileMismatched:
		return c.ready(c.mismatched(*obs))
	case f == FileUnusable:
		return c.ready(c.fire(*obs, nil, handoff.EventUnusableFile))
	}
	return c.ready(nil)
}

// mismatched: the agent, quiet, answered another prompt. Ours counts as not
// started: the guard is armed again from now, and the observation is then
// a quiet one without an answer in AwaitingStart (which ends the wait only
// at the response deadline, or at once with a zero grace). The turn that
// ended and the screen it left are the other prompt's: neither counts as
// ours having started.
func (c *Core) mismatched(obs Observation) []Entry {
	fired := c.fire(obs, nil, handoff.EventAnswerMismatched)
	c.snap.GuardSince, c.snap.IdleSince = obs.At, time.Time{}
	obs.TurnCompleted, obs.Changed = false, false
	return append(fired, c.quiet(obs)...)
}

// CheckJournal reports whether journal is a chain of moves the transition
// table allows, starting in AwaitingStart, each move starting where the one
// before it ended. Every journal the engine writes passes; a test of a
// live dispatch asserts this instead of one path that the machine's timing
// happened to take.
func CheckJournal(journal []Entry) error {
	edges := map[[3]string]bool{}
	for _, t := range handoff.Transitions() {
		for _, f := range t.From {
			edges[[3]string{string(f), string(t.Event), string(t.To)}] = true
		}
	}
	state := handoff.AwaitingStart
	for i, e := range journal {
		if e.From != state {
			return fmt.Errorf("move %d (%s -%s-> %s) starts in %s, but the dispatch was in %s", i+1, e.From, e.Event, e.To, e.From, state)
		}
		if !edges[[3]string{string(e.From), string(e.Event), string(e.To)}] {
			return fmt.Errorf("move %d (%s -%s-> %s) is not in the transition table", i+1, e.From, e.Event, e.To)
		}
		state = e.To
	}
	return nil
}

// fire moves the machine by ev, appending the journal entry to fired.
func (c *Core) fire(obs Observation, fired []Entry, ev handoff.Event) []Entry {
	from := c.State()
	var same fsm.NoTransitionError // a row back into the same state
	if err := c.m.Event(context.Background(), string(ev)); err != nil && !errors.As(err, &same) {
		// The rules only fire what the table allows; reaching this is a bug
		// in the core or the table, not a runtime condition.
		panic(fmt.Sprintf("fsm: event %s from %s refused by the table: %v", ev, from, err))
	}
	if c.State().Final() {
		c.snap.End = ev
	}
	return append(fired, Entry{At: obs.At, From: from, To: c.State(), Event: ev, Status: obs.Status})
}

// active applies rule 3: the agent is doing something.
func (c *Core) active(obs Observation) []Entry {
	var fired []Entry
	c.snap.IdleSince = time.Time{}
	if c.State() != handoff.Working {
		fired = c.fire(obs, fired, handoff.EventActive)
	}
	if !obs.At.Before(c.ResponseDeadline()) {
		fired = c.fire(obs, fired, handoff.EventTimeout)
	}
	return fired
}

// quiet applies rule 4: idle/completed and no answer in a file.
func (c *Core) quiet(obs Observation) []Entry {
	var fired []Entry
	pastResponse := !obs.At.Before(c.ResponseDeadline())
	switch c.State() {
	case handoff.AwaitingStart:
		switch {
		case obs.TurnCompleted && !pastResponse:
			fired = c.fire(obs, fired, handoff.EventTurnCompleted)
		case obs.Changed && c.cfg.StartOnOutput && !pastResponse:
			fired = c.fire(obs, fired, handoff.EventOutputChanged)
		case obs.At.Before(c.startupDeadline()) && !pastResponse:
			return nil
		default:
			fired = c.fire(obs, fired, handoff.EventStartupTimeout)
		}
		c.snap.IdleSince = obs.At
	case handoff.Working:
		fired = c.fire(obs, fired, handoff.EventQuiet)
		c.snap.IdleSince = obs.At
	}
	if pastResponse || !obs.At.Before(c.snap.IdleSince.Add(c.cfg.IdleGrace)) {
		if !pastResponse && c.snap.Reminders < c.cfg.Reminders {
			fired = c.fire(obs, fired, handoff.EventRemind)
			c.snap.Reminders++
			c.snap.GuardSince, c.snap.IdleSince = obs.At, time.Time{}
			c.action = SendReminder
			return fired
		}
		ev := handoff.EventNoResponseFile
		if !c.cfg.Strict() {
			ev = handoff.EventFallback
		}
		fired = c.fire(obs, fired, ev)
	}
	return fired
}

// waitingUser applies the rule for waiting_user_answer after rule 3 (the
// agent is active): answer automatically while answers are left and the
// cooldown has passed, fail once they ran out, or — with no automatic
// answer configured — ask for a person's attention once.
func (c *Core) waitingUser(obs Observation, fired []Entry) []Entry {
	switch {
	case c.State().Final():
		return fired
	case c.cfg.AutoAnswer == "":
		if !c.snap.Attention {
			c.snap.Attention = true
			c.action = NeedsAttention
		}
	case !c.snap.LastAnswer.IsZero() && obs.At.Before(c.snap.LastAnswer.Add(c.cfg.AnswerCooldown)):
		// The last answer may still be taking effect.
	case c.snap.Answers >= c.cfg.MaxAnswers:
		fired = c.fire(obs, fired, handoff.EventNeedsUser)
	default:
		c.snap.Answers++
		c.snap.LastAnswer = obs.At
		c.action = AnswerPrompt
	}
	return fired
}

// outcomes maps the table's final events to their endings. The table is
// constant, so it is read once, not on every final step.
var outcomes = sync.OnceValue(func() map[handoff.Event]handoff.Outcome {
	m := map[handoff.Event]handoff.Outcome{}
	for _, t := range handoff.Transitions() {
		if t.Outcome != nil {
			m[t.Event] = *t.Outcome
		}
	}
	return m
})

// ready is the step's result: the ending (from the table) once final, with
// the action the rules asked for (or the one a fallback needs).
func (c *Core) ready(fired []Entry) Ready {
	r := Ready{Transitions: fired, State: c.State(), Deadline: c.Deadline(), Action: c.action}
	c.action = ""
	if r.State.Final() {
		if o, ok := outcomes()[c.snap.End]; ok {
			r.Outcome = &o
		}
		if len(fired) > 0 && c.snap.End == handoff.EventFallback {
			r.Action = FetchLastOutput
		}
	}
	return r
}
