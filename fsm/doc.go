// Package fsm is the dispatch engine: after a prompt is sent to an agent,
// it decides from the agent's terminal and its response file when the
// answer is there, when to give up, and why.
//
// Most callers need one call. SendAndWait sends the prompt (with the
// response file instruction) to a handoff.Sender and waits on a
// handoff.Terminal, both usually one tmuxdriver pane; Options carry the
// Config, the role and the work folder. It returns a Result (the answer,
// where it came from, the transitions on the way) or an error that
// errors.Is matches against the handoff sentinels (handoff.ErrTimeout, …;
// a *handoff.WaitError says more). Wait only waits, for a prompt sent some
// other way. A wait can outlive its process: Options.OnCheckpoint receives
// a Checkpoint after each look, and Options.Resume goes on from one
// without sending again.
//
// It has two layers. The core (Core) is pure: an Observation with its
// time goes in; the transitions fired, the action to take and the next
// deadline come out (Ready). It does no I/O, reads no clock and starts no
// goroutine, so every rule of the specification can be tested on exact
// timelines. The driver (Wait, SendAndWait) gathers the observations (the
// terminal's status, the response file, the wake-ups of file watches and
// completion hooks) on a clock, carries out the core's actions (consume
// the file into the run's archive, fetch the last output), and returns.
// Around the wait it holds the role's response slot and the pane (one
// dispatch each), and looks at the agent before it pastes (BusyError when
// it stays busy).
package fsm
