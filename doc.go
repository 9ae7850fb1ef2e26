// Package handoff is the vocabulary of handoff-fsm, a library and a command
// that hand a prompt to an AI coding agent's CLI (Codex, Claude Code, Gemini
// CLI, …) running in a tmux pane and decide, with an explicit state
// machine, when the agent is done and what it answered.
//
// A dispatch goes like this. The prompt is pasted into the agent's pane
// with the RESPONSE FILE INSTRUCTION appended (WithInstruction): it asks
// the agent to write its answer to its role's response file (ResponsePath)
// and to sign it with a Receipt. Then the pane (a Terminal, whose screen a
// provider's Classifier reads as a Status) and that file are looked at until
// the transition table ends the dispatch: Done, with the file's content (or,
// when allowed, the terminal's last output), or Failed, with one of the
// table's outcomes, an error to test with errors.Is and an exit status.
//
// This package holds only what every layer shares, and does no I/O:
//   - State, Status and Event, and Transitions: the table as data, each
//     final row with its Outcome; Refusals, the endings before anything is
//     sent (an agent still busy);
//   - Config, the wait's settings: start from DefaultConfig, the
//     specification's defaults (the zero Config stands for it), and change
//     what you need;
//   - the interfaces the engine drives: Terminal, Sender, Classifier;
//   - roles and their response files, the instruction and its Receipt;
//   - the error sentinels (ErrTerminalError, ErrTimeout, …, and WaitError).
//
// The table is data on purpose: one place says which state follows which
// event, so the engine, the diagram and the tests cannot disagree.
//
// Where to go next: package fsm runs the table (fsm.SendAndWait sends and
// waits, fsm.Wait only waits); tmuxdriver is a Terminal and Sender over
// tmux; provider picks the Classifier of an agent CLI by name;
// responsefile reads, consumes and archives response files; and
// cmd/handoff-fsm is the command built on all of them. The package example
// is a whole dispatch.
package handoff
