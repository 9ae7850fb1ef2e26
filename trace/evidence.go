package trace

import (
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// What decided a transition (Evidence.By).
const (
	// ByScreen: the classifier's reading of the agent's screen.
	ByScreen = "screen"
	// ByFile: what was at the response path (read, refused or another
	// dispatch's answer), on a quiet screen.
	ByFile = "file"
	// ByHook: the agent's completion hook said its turn was over.
	ByHook = "hook"
	// ByDeadline: a window ran out (the startup window, the idle grace,
	// the response timeout) on the screen read at that poll.
	ByDeadline = "deadline"
	// ByLook: the terminal is gone, or could not be read too many times in
	// a row.
	ByLook = "look"
)

// Evidence is what one transition was decided on: the poll's facts as the
// engine saw them, so a person can check a verdict ("done after 20 s?")
// against the screen reading, the file or the deadline behind it.
type Evidence struct {
	// By is what decided: screen, file, hook, deadline or look.
	By string `json:"by"`
	// Reason, Detail and Signals are the classifier's reading of the
	// screen at that poll (handoff.Classification); empty when the screen
	// was not read (a hook, a gone pane).
	Reason  string `json:"reason,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Signals any    `json:"signals,omitempty"`
	// File is what was at the response path (fsm.FileState): present,
	// ready, blank, mismatched or unusable; "" when nothing was.
	File string `json:"file,omitempty"`
	// Archived is where a file read at that poll was moved.
	Archived string `json:"archived,omitempty"`
	// Problem says why the thing at the path could not be taken.
	Problem string `json:"problem,omitempty"`
	// Deadline names the window that ran out (By deadline).
	Deadline string `json:"deadline,omitempty"`
}

// EvidenceOf is the evidence of transition e, fired by poll p.
func EvidenceOf(p fsm.Poll, e fsm.Entry) *Evidence {
	ev := &Evidence{}
	if c := p.Classification; c != nil && !p.TurnCompleted {
		ev.Reason, ev.Detail, ev.Signals = c.Reason, c.Detail, c.Signals
	} else if p.Detail != "" {
		ev.Detail = p.Detail
	}
	if p.File != fsm.FileAbsent {
		ev.File = string(p.File)
	}
	ev.Archived, ev.Problem = p.Archived, string(p.Problem)
	switch e.Event {
	case handoff.EventFileReady, handoff.EventAnswerMismatched, handoff.EventUnusableFile:
		ev.By = ByFile
	case handoff.EventTurnCompleted:
		ev.By = ByHook
	case handoff.EventStartupTimeout:
		ev.By, ev.Deadline = ByDeadline, "startup window"
	case handoff.EventNoResponseFile, handoff.EventFallback, handoff.EventRemind:
		ev.By, ev.Deadline = ByDeadline, "idle grace or response timeout"
	case handoff.EventTimeout:
		ev.By, ev.Deadline = ByDeadline, "response timeout"
	case handoff.EventTerminalError:
		ev.By = ByScreen
		if p.Unreadable || p.Classification == nil {
			ev.By = ByLook
		}
	default:
		ev.By = ByScreen
		if p.TurnCompleted {
			ev.By = ByHook
		}
	}
	return ev
}
