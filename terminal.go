package handoff

import (
	"context"
	"errors"
)

// ErrTerminalGone is wrapped by a Terminal's Status error when the terminal
// is gone for good (the pane was killed or is dead, the agent exited, the
// server is down): the wait fails at once, with no retry.
var ErrTerminalGone = errors.New("terminal gone")

// ErrNothingShown is wrapped by a Terminal's Status error when the
// terminal is alive but shows nothing at all: a full-screen agent between
// two frames (OpenCode blanks its screen for seconds on a loaded machine).
// A blank look says nothing about the agent: the engine neither counts it
// as a failed look nor as a status, and waits for a screen it can read, up
// to the dispatch's own deadlines.
var ErrNothingShown = errors.New("the terminal shows nothing")

// Terminal is the agent's terminal as the engine sees it. The tmuxdriver
// package implements it over tmux; tests and replay use scripted ones.
type Terminal interface {
	// Status observes the terminal once. With a non-nil error:
	//   - an error wrapping ErrTerminalGone (pane gone or dead, server
	//     down), or the status StatusError (the agent shows an error, which
	//     the error quotes): the engine ends the wait at once with
	//     ErrTerminalError carrying the error's message;
	//   - an error wrapping ErrNothingShown: the terminal is alive and
	//     blank. No observation: the engine looks again on the next poll,
	//     however often that happens; at the response deadline it decides
	//     on the last status it read;
	//   - any other error: this one look failed (tmux busy, a call that
	//     timed out). The engine tries again on the next poll, and fails the
	//     wait the same way after Config.MaxPollFailures failures in a row.
	Status(ctx context.Context) (Status, error)
	// LastOutput returns the agent's last message, used as the response in
	// fallback mode (strict handoff off).
	LastOutput(ctx context.Context) (string, error)
}

// Sender delivers a prompt to an agent so that it arrives as one message.
type Sender interface {
	Send(ctx context.Context, text string) error
}

// Fingerprinter is a Terminal that can tell whether its screen changed:
// Fingerprint identifies what the last Status call saw (the same screen
// gives the same value). It lets Config.StartOnOutput count a change of the
// screen since dispatch as the agent having started.
type Fingerprinter interface {
	Fingerprint() uint64
}

// Explainer is a Terminal that can say why its last Status call read what
// it read: the classifier's whole reading (status, reason, detail,
// signals), kept so each decision of the engine carries its evidence
// (fsm.Observation.Classification). ok is false before the first reading.
type Explainer interface {
	LastClassification() (c Classification, ok bool)
}

// KeySender types keys into a terminal without pasting or submitting them
// (tmux send-keys names: "Enter", "y", "1"), to answer a permission prompt
// (Config.AutoAnswer). A Sender that is also a KeySender can answer.
type KeySender interface {
	SendKeys(ctx context.Context, keys ...string) error
}

// Classification is what a Classifier read off a screen: the status, a short
// reason a person can check, and the provider-specific signals that decided
// it (JSON-encodable, for debugging misreadings).
type Classification struct {
	Status Status `json:"status"`
	Reason string `json:"reason"`
	// Detail is what the screen itself said when that matters to a person:
	// for StatusError the agent's error line, quoted in the wait's error.
	// "" when the screen said nothing worth quoting.
	Detail  string `json:"detail,omitempty"`
	Signals any    `json:"signals"`
}

// Classifier turns a capture of an agent's terminal into a status. Each agent
// CLI has its own package (codex, …), chosen by name in package provider;
// the tmux driver takes any of them.
type Classifier interface {
	// Classify reads a raw capture (escape sequences allowed) and the pane
	// title ("" when unknown) into a Classification.
	Classify(capture, title string) Classification
	// LastMessage extracts the last assistant message from a capture, without
	// prompt, footer or status lines. It returns an error when there is none.
	LastMessage(capture string) (string, error)
}
