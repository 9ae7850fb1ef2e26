// Package fsm is the dispatch engine: it waits for an agent's answer after a
// prompt was sent, deciding from the terminal's status and the response file
// when the answer is there, when to give up, and why.
//
// It has two layers. The core (Core) is pure: an observation with its time
// goes in; the transitions fired, the decision and the next deadline come
// out. It does no I/O, reads no clock and starts no goroutine, so every rule
// of the spec can be tested on exact timelines. The driver (Wait,
// SendAndWait) polls a handoff.Terminal and the response file on a clock,
// feeds the core, archives what it reads and returns a Result or a typed
// error.
package fsm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/looplab/fsm"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// FileState is what one poll found at the response file's path.
type FileState string

// The file states. Only FileReady can finish a wait; the others count as "no
// file".
const (
	// FileAbsent: no file at the path.
	FileAbsent FileState = "absent"
	// FilePresent: a file exists but was not read, because the agent was not
	// quiet (it may still be writing it).
	FilePresent FileState = "present"
	// FileBlank: the file was read and holds nothing but white space; the
	// driver archives it and it counts as absent.
	FileBlank FileState = "blank"
	// FileReady: the file was read while the agent was quiet and holds an
	// answer.
	FileReady FileState = "ready"
)

// Observation is one look at the agent: the terminal's status and the
// response file, taken at At.
type Observation struct {
	At     time.Time
	Status handoff.Status
	// Detail is what the terminal said beyond the status (an error message
	// when it could not be read); it ends up in a WaitError.
	Detail string
	File   FileState
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

// Decision is what the core concluded from an observation.
type Decision int

// The decisions.
const (
	// KeepWaiting: observe again, at the latest by the outcome's Deadline.
	KeepWaiting Decision = iota
	// DoneFromFile: the response file (read in this observation) is the answer.
	DoneFromFile
	// DoneByFallback: the grace ran out without a file and strict handoff is
	// off: the terminal's last output is the answer.
	DoneByFallback
	// Failed: the wait failed; the outcome's Kind says why.
	Failed
)

// String names the decision for logs and messages.
func (d Decision) String() string {
	switch d {
	case KeepWaiting:
		return "keep waiting"
	case DoneFromFile:
		return "done (file)"
	case DoneByFallback:
		return "done (fallback)"
	case Failed:
		return "failed"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Outcome is what one Step did and concluded.
type Outcome struct {
	// Transitions fired by the observation, in order (often none, sometimes
	// two: e.g. a quiet observation at the response deadline in
	// AwaitingStart releases the guard and ends the grace at once).
	Transitions []Entry
	Decision    Decision
	// Kind is the failure sentinel (handoff.ErrTerminalError,
	// ErrNoResponseFile or ErrTimeout) when Decision is Failed.
	Kind error
	// State is the state after the step.
	State handoff.State
	// Deadline is the earliest time at which the core would decide something
	// without a change on the terminal (startup timeout, grace expiry,
	// response timeout); zero once the wait is over. The driver observes
	// again at the deadline so that it is decided on an observation taken
	// then, not one poll interval later.
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
	// End is the event that finished the wait; empty while it runs.
	End handoff.Event `json:"end,omitempty"`
}

// Core is the pure state machine of one wait. The current state lives in a
// looplab/fsm machine built from handoff.Transitions(), so only the moves
// the table allows can happen. A Core is not safe for concurrent use.
type Core struct {
	cfg  handoff.Config
	snap Snapshot
	m    *fsm.FSM
}

// NewCore starts the state machine for a prompt dispatched at dispatchedAt,
// in AwaitingStart. cfg must be valid (handoff.Config.Validate).
func NewCore(cfg handoff.Config, dispatchedAt time.Time) *Core {
	return newCore(cfg, Snapshot{State: handoff.AwaitingStart, DispatchedAt: dispatchedAt})
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
	case s.Polls < 0:
		return nil, fmt.Errorf("%w: negative poll count", ErrBadSnapshot)
	case s.State == handoff.Done && s.End != handoff.EventFileReady && s.End != handoff.EventFallback,
		s.State == handoff.Failed && kindOf(s.End) == nil:
		return nil, fmt.Errorf("%w: state %s cannot end with event %q", ErrBadSnapshot, s.State, s.End)
	case !s.State.Final() && s.End != "":
		return nil, fmt.Errorf("%w: state %s is not final but has end event %q", ErrBadSnapshot, s.State, s.End)
	}
	return newCore(cfg, s), nil
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
	return s
}

// State is the current state.
func (c *Core) State() handoff.State { return handoff.State(c.m.Current()) }

// Config is the configuration the core runs with.
func (c *Core) Config() handoff.Config { return c.cfg }

// ResponseDeadline is when the response timeout passes.
func (c *Core) ResponseDeadline() time.Time {
	return c.snap.DispatchedAt.Add(c.cfg.ResponseTimeout)
}

// startupDeadline is when the startup guard is released (design D2).
func (c *Core) startupDeadline() time.Time {
	return c.snap.DispatchedAt.Add(c.cfg.StartupTimeout())
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

// Step feeds one observation to the core. The rules, in order (the spec's
// poll requirement, file-handoff-spec.md):
//  1. status error → Failed (terminal error), before anything else;
//  2. quiet (idle/completed) with a ready response file → Done from the file;
//  3. any other status → the agent has started (→ Working, the grace
//     resets); at or after the response deadline → Failed (timeout);
//  4. quiet without a file: AwaitingStart ignores it until the startup
//     timeout releases the guard (→ StartupTimeout, the grace starts now);
//     Working → IdleGrace (the grace starts now); once the grace has run out
//     on consecutive quiet observations, or the response deadline has
//     passed, strict → Failed (no response file), else Done by fallback.
//
// Stepping a finished core changes nothing and repeats its decision.
// Observations are expected in time order.
func (c *Core) Step(obs Observation) Outcome {
	st := c.State()
	if st.Final() {
		return c.outcome(nil, c.finalDecision())
	}
	c.snap.Polls++
	c.snap.LastStatus = obs.Status
	c.snap.LastAt = obs.At

	var fired []Entry
	fire := func(ev handoff.Event) {
		from := c.State()
		if err := c.m.Event(context.Background(), string(ev)); err != nil {
			// The rules above only fire what the table allows; reaching
			// this is a bug in the core or the table, not a runtime
			// condition.
			panic(fmt.Sprintf("fsm: event %s from %s refused by the table: %v", ev, from, err))
		}
		fired = append(fired, Entry{At: obs.At, From: from, To: c.State(), Event: ev, Status: obs.Status})
	}
	expire := func() Decision {
		if c.cfg.Strict {
			fire(handoff.EventNoResponseFile)
			return Failed
		}
		fire(handoff.EventFallback)
		return DoneByFallback
	}
	pastResponse := !obs.At.Before(c.ResponseDeadline())

	switch {
	case obs.Status == handoff.StatusError:
		fire(handoff.EventTerminalError)
		return c.outcome(fired, Failed)

	case obs.Status.Quiet() && obs.File == FileReady:
		fire(handoff.EventFileReady)
		return c.outcome(fired, DoneFromFile)

	case !obs.Status.Quiet():
		c.snap.IdleSince = time.Time{}
		if st != handoff.Working {
			fire(handoff.EventActive)
		}
		if pastResponse {
			fire(handoff.EventTimeout)
			return c.outcome(fired, Failed)
		}
		return c.outcome(fired, KeepWaiting)
	}

	// Quiet, no usable file.
	switch st {
	case handoff.AwaitingStart:
		if obs.At.Before(c.startupDeadline()) && !pastResponse {
			return c.outcome(fired, KeepWaiting)
		}
		fire(handoff.EventStartupTimeout)
		c.snap.IdleSince = obs.At
	case handoff.Working:
		fire(handoff.EventQuiet)
		c.snap.IdleSince = obs.At
	}
	if pastResponse || !obs.At.Before(c.snap.IdleSince.Add(c.cfg.IdleGrace)) {
		return c.outcome(fired, expire())
	}
	return c.outcome(fired, KeepWaiting)
}

// finalDecision reconstructs the decision of a finished core.
func (c *Core) finalDecision() Decision {
	if c.State() == handoff.Failed {
		return Failed
	}
	if c.snap.End == handoff.EventFallback {
		return DoneByFallback
	}
	return DoneFromFile
}

func (c *Core) outcome(fired []Entry, d Decision) Outcome {
	if len(fired) > 0 && c.State().Final() {
		c.snap.End = fired[len(fired)-1].Event
	}
	o := Outcome{Transitions: fired, Decision: d, State: c.State(), Deadline: c.Deadline()}
	if d == Failed {
		o.Kind = kindOf(c.snap.End)
	}
	return o
}

// kindOf maps the event that failed a wait to its error sentinel.
func kindOf(ev handoff.Event) error {
	switch ev {
	case handoff.EventTerminalError:
		return handoff.ErrTerminalError
	case handoff.EventNoResponseFile:
		return handoff.ErrNoResponseFile
	case handoff.EventTimeout:
		return handoff.ErrTimeout
	}
	return nil
}
