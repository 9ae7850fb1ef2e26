package handoff

import "errors"

// State is where a dispatch stands while the orchestrator waits for an agent.
type State string

// The states of a dispatch. Done and Failed are final.
const (
	// AwaitingStart: the prompt was sent but the agent has not yet been seen
	// working on it. The screen may still show the previous turn's idle
	// prompt (the startup race), so quiet observations do not count yet. A
	// turn that answered another prompt (answer_mismatched) comes back here.
	AwaitingStart State = "AwaitingStart"
	// Working: the agent has been seen doing something other than sitting idle.
	Working State = "Working"
	// IdleGrace: the agent went quiet after working; the idle grace runs on
	// consecutive quiet observations.
	IdleGrace State = "IdleGrace"
	// StartupTimeout: the agent was never seen working within the startup
	// timeout; the guard was released with a warning and the idle grace runs.
	StartupTimeout State = "StartupTimeout"
	// Done: the response was obtained, from the response file or (fallback
	// mode) from the terminal's last output.
	Done State = "Done"
	// Failed: the dispatch ended with an error (terminal error, no response
	// file, or response timeout).
	Failed State = "Failed"
)

// States lists every state in the order the diagram and docs present them.
func States() []State {
	return []State{AwaitingStart, Working, IdleGrace, StartupTimeout, Done, Failed}
}

// Final reports whether no transition leaves s.
func (s State) Final() bool { return s == Done || s == Failed }

// Describe says in one line what the state means, for the diagram's legend.
func (s State) Describe() string {
	switch s {
	case AwaitingStart:
		return "prompt sent (or the agent's last turn answered another prompt), agent not yet seen working on ours; quiet screens may be stale and do not count"
	case Working:
		return "agent seen busy (any status other than idle/completed)"
	case IdleGrace:
		return "agent quiet after working; idle grace counts consecutive quiet polls"
	case StartupTimeout:
		return "agent never seen working within the startup timeout; guard released with a warning, idle grace counts"
	case Done:
		return "response obtained (response file, or last output in fallback mode)"
	case Failed:
		return "terminal error, no response file (strict), or response timeout"
	}
	return "unknown state"
}

// Status is what the terminal shows, as read by a Classifier.
type Status string

// The terminal statuses. Any other value counts as "not quiet": the agent is
// taken to be doing something.
const (
	StatusIdle              Status = "idle"
	StatusProcessing        Status = "processing"
	StatusCompleted         Status = "completed"
	StatusWaitingUserAnswer Status = "waiting_user_answer"
	StatusError             Status = "error"
)

// Quiet reports whether the status shows a ready prompt (idle or completed):
// the only statuses in which a response file is read or the grace runs.
func (s Status) Quiet() bool { return s == StatusIdle || s == StatusCompleted }

// Event is what an observation means to the state machine.
type Event string

// The events. Each names what was observed or which deadline passed.
const (
	// EventTerminalError: the terminal reported status error, is gone, or
	// could not be read on Config.MaxPollFailures polls in a row (or at the
	// response deadline). It wins over everything else.
	EventTerminalError Event = "terminal_error"
	// EventFileReady: a non-empty response file while the terminal is quiet.
	EventFileReady Event = "file_ready"
	// EventActive: any status other than idle/completed; the agent has started.
	EventActive Event = "active"
	// EventQuiet: idle/completed without a response file after working.
	EventQuiet Event = "quiet"
	// EventStartupTimeout: never seen working within the startup timeout.
	EventStartupTimeout Event = "startup_timeout"
	// EventNoResponseFile: the grace ran out (or the response timeout passed)
	// while quiet and without a file, in strict mode.
	EventNoResponseFile Event = "no_response_file"
	// EventFallback: as EventNoResponseFile, with strict mode off: the
	// terminal's last output is the response.
	EventFallback Event = "fallback"
	// EventTimeout: the response timeout passed while the agent still worked.
	EventTimeout Event = "timeout"
	// EventRemind: the grace ran out without a file and a reminder is left
	// (Config.Reminders): the agent is reminded of its response file and
	// the startup guard is armed again.
	EventRemind Event = "remind"
	// EventOutputChanged: quiet, never seen working, but the screen changed
	// since the first observation (Config.StartOnOutput): the agent did
	// something, so the grace starts now.
	EventOutputChanged Event = "output_changed"
	// EventTurnCompleted: quiet, never seen working, but the agent's own
	// completion hook said its turn is over (Codex's notify program): it
	// worked, so the grace starts now.
	EventTurnCompleted Event = "turn_completed"
	// EventNeedsUser: the agent kept waiting for the user after the
	// automatic answers ran out (Config.AutoAnswer, MaxAnswers).
	EventNeedsUser Event = "needs_user"
	// EventAnswerMismatched: the agent, quiet, left a response file that
	// carries another dispatch's receipt (an answer to an earlier prompt,
	// written late). It is archived, never returned; the agent was busy
	// with another prompt, so ours counts as not started yet: back to
	// AwaitingStart, the startup guard armed again.
	EventAnswerMismatched Event = "answer_mismatched"
	// EventUnusableFile: the agent is quiet and the thing at the response
	// path cannot be taken as an answer (a symlink, not a regular file, over
	// the size limit, unreadable). It is left where it is, untouched, and
	// the dispatch fails: waiting longer would not make it usable.
	EventUnusableFile Event = "unusable_file"
	// EventPromptNotTaken: the agent, quiet, left an answer carrying this
	// dispatch's receipt, but its own screen shows it did not take the
	// prompt whole and once (submitted twice, split into several user
	// messages, its paste placeholder or a piece submitted): the answer is
	// archived, never returned, and the dispatch fails naming what the
	// screen showed. A screen that cannot tell never fires it.
	EventPromptNotTaken Event = "prompt_not_taken"
)

// Transition is one row of the transition table: Event moves a dispatch from
// any of From to To. A row into a final state says what that ending means.
type Transition struct {
	Event Event
	From  []State
	To    State
	// Outcome is how the dispatch ended, on rows into Done or Failed; nil
	// on the others.
	Outcome *Outcome
}

// Outcome is what a final transition means. Everything that depends on how
// a dispatch ended — the error a failed wait wraps, the source of a done
// one's response, the replay format's names, the command's exit status, the
// diagram's labels — is read from here, so a new ending is one new row.
type Outcome struct {
	// Name is the machine name: the response's source for a done dispatch
	// ("file", "fallback"), the failure kind for a failed one
	// ("terminal_error", "no_response_file", "timeout").
	Name string
	// Err is the sentinel a failed wait's error wraps (errors.Is); nil when
	// the dispatch is done.
	Err error
	// Exit is the exit status of `handoff-fsm send` for this ending.
	Exit int
	// Summary says in a few words what happened, for help text and logs.
	Summary string
}

// Done reports whether the dispatch produced a response.
func (o Outcome) Done() bool { return o.Err == nil }

// Transitions returns the transition table: the single source of truth that
// the engine runs and the state diagram is drawn from. A fresh copy is
// returned each call so no caller can change another's table.
func Transitions() []Transition {
	waiting := []State{AwaitingStart, Working, IdleGrace, StartupTimeout}
	quiet := []State{IdleGrace, StartupTimeout}
	return []Transition{
		{Event: EventTerminalError, From: waiting, To: Failed, Outcome: &Outcome{
			Name: "terminal_error", Err: ErrTerminalError, Exit: 4,
			Summary: "terminal error: the agent showed an error, or the pane, agent or tmux server is gone"}},
		{Event: EventFileReady, From: waiting, To: Done, Outcome: &Outcome{
			Name: "file", Exit: 0,
			Summary: "done: the response came from the response file"}},
		{Event: EventActive, From: []State{AwaitingStart, IdleGrace, StartupTimeout}, To: Working},
		{Event: EventQuiet, From: []State{Working}, To: IdleGrace},
		{Event: EventStartupTimeout, From: []State{AwaitingStart}, To: StartupTimeout},
		{Event: EventNoResponseFile, From: quiet, To: Failed, Outcome: &Outcome{
			Name: "no_response_file", Err: ErrNoResponseFile, Exit: 5,
			Summary: "no response file: the agent went quiet for the idle grace without writing it (strict)"}},
		{Event: EventFallback, From: quiet, To: Done, Outcome: &Outcome{
			Name: "fallback", Exit: 3,
			Summary: "done: fallback (strict off), the response is the terminal's last output"}},
		{Event: EventTimeout, From: []State{Working}, To: Failed, Outcome: &Outcome{
			Name: "timeout", Err: ErrTimeout, Exit: 6,
			Summary: "timeout: the response timeout passed while the agent still worked"}},
		{Event: EventRemind, From: quiet, To: AwaitingStart},
		{Event: EventOutputChanged, From: []State{AwaitingStart}, To: IdleGrace},
		{Event: EventTurnCompleted, From: []State{AwaitingStart}, To: IdleGrace},
		{Event: EventNeedsUser, From: []State{Working}, To: Failed, Outcome: &Outcome{
			Name: "needs_user", Err: ErrNeedsUser, Exit: 7,
			Summary: "needs the user: the agent still waited for an answer after the automatic answers ran out"}},
		{Event: EventAnswerMismatched, From: waiting, To: AwaitingStart},
		{Event: EventUnusableFile, From: waiting, To: Failed, Outcome: &Outcome{
			Name: "unusable_response_file", Err: ErrResponseFile, Exit: 1,
			Summary: "unusable response file: a symlink, not a regular file, too large or unreadable; left in place"}},
		{Event: EventPromptNotTaken, From: waiting, To: Failed, Outcome: &Outcome{
			Name: "prompt_not_taken", Err: ErrPromptNotTaken, Exit: 1,
			Summary: "prompt not taken whole and once: the agent's screen shows it submitted twice, split, or something else in its place; the answer is archived, not returned"}},
	}
}

// Refusals are the endings of a dispatch that never sent its prompt, so the
// machine never started: no transition leads to them, but each has its
// error and exit status like the table's endings.
func Refusals() []Outcome {
	return []Outcome{{Name: "agent_busy", Err: ErrAgentBusy, Exit: 8,
		Summary: "agent busy: before pasting, the agent was working or waiting for the user and showed no ready prompt within the busy wait; nothing was sent"}}
}

// Outcomes lists every ending: the table's, in table order, then the
// Refusals.
func Outcomes() []Outcome {
	var out []Outcome
	for _, t := range Transitions() {
		if t.Outcome != nil {
			out = append(out, *t.Outcome)
		}
	}
	return append(out, Refusals()...)
}

// FailureOf returns the failed ending whose sentinel err wraps; ok is false
// when err is nil or wraps none of them.
func FailureOf(err error) (o Outcome, ok bool) {
	if err == nil {
		return Outcome{}, false
	}
	for _, o := range Outcomes() {
		if o.Err != nil && errors.Is(err, o.Err) {
			return o, true
		}
	}
	return Outcome{}, false
}

// Describe says in one line when the event happens, for the diagram's legend.
func (e Event) Describe() string {
	switch e {
	case EventTerminalError:
		return "status error, terminal gone, or unreadable on max-poll-failures polls in a row (or at the response timeout); checked before anything else"
	case EventFileReady:
		return "non-empty response file while idle/completed"
	case EventActive:
		return "any status other than idle/completed"
	case EventQuiet:
		return "idle/completed without a response file"
	case EventStartupTimeout:
		return "still quiet when the startup timeout (= idle grace) runs out; logged as a warning"
	case EventNoResponseFile:
		return "grace ran out (or response timeout) while quiet without a file, strict mode"
	case EventFallback:
		return "grace ran out (or response timeout) while quiet without a file, strict mode off"
	case EventTimeout:
		return "response timeout while the agent is still working"
	case EventRemind:
		return "grace ran out without a file and a reminder is left (Config.Reminders, default 0): the reminder is sent, the startup guard re-armed"
	case EventOutputChanged:
		return "idle/completed, never seen working, but the screen changed since the first observation (Config.StartOnOutput, off by default): the grace starts now"
	case EventTurnCompleted:
		return "the agent's completion hook (Codex notify) reported the turn over before any observation saw it working: the grace starts now"
	case EventNeedsUser:
		return "waiting_user_answer again after the last automatic answer (Config.AutoAnswer, MaxAnswers)"
	case EventAnswerMismatched:
		return "idle/completed with a response file that carries another dispatch's receipt (an earlier prompt's late answer): archived as .mismatch, never returned; the startup guard is armed again"
	case EventUnusableFile:
		return "quiet with something at the response path that cannot be read as an answer (symlink, not a regular file, over the size limit, unreadable): left in place"
	case EventPromptNotTaken:
		return "quiet with this dispatch's answer, but the agent's screen (its user messages, read with the scrollback) shows the prompt was not taken whole and once: twice, split, or a placeholder or piece submitted; a screen that cannot tell never fires it"
	}
	return "unknown event"
}
