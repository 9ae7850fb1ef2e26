package screen

import (
	"errors"
	"fmt"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Provider is one agent CLI as one value: what it is (name, npm package,
// proven version, turn-end hook), how a prompt reaches it (the pause before
// Enter, its composer's rules) and what its screens mean (classify, the last
// message, recognising its pane). Each provider package exports one
// (codex.Provider, claude.Provider, …) holding its rules only; the registry
// (package provider) is a list of them.
//
// A Provider is a handoff.Classifier and, through its Composer, a
// handoff.Composer, so the tmux driver delivers through its rules. It holds
// no state: one value may serve many panes concurrently.
type Provider struct {
	// Name is the provider's name (--provider NAME), which is also its
	// CLI's executable.
	Name string `json:"name"`
	// CLI is the agent CLI: its npm package.
	CLI string `json:"cli"`
	// Version is the CLI version its real screens and end-to-end tests are
	// proven on.
	Version string `json:"version"`
	// Window is the range of releases proven to read right, Version
	// among them; `up`, `status --team` and `doctor` warn about a CLI
	// outside it (docs/versions.md).
	Window Window `json:"window"`
	// Hook is the CLI's hook (or notify event) that reports the end of a
	// turn, registered as `handoff-fsm hook --dir DIR`; "" when none is.
	Hook string `json:"hook"`
	// EnterDelay is the pause the CLI needs between a paste and Enter when
	// it is longer than the tmux driver's default (0: the default).
	EnterDelay time.Duration `json:"-"`
	// Composer is what the CLI's message box does with a prompt.
	Composer `json:"-"`
	// Launch is how `handoff-fsm up` wires its turn-end hook for one run
	// and resumes its last session.
	Launch Launch `json:"-"`
	// Read reads a raw capture (escape sequences allowed) and the pane
	// title ("" when unknown) into a Classification (see Verdict).
	Read func(capture, title string) handoff.Classification `json:"-"`
	// Last returns the last assistant message of a capture, or an error
	// wrapping ErrNoAssistantMessage.
	Last func(capture string) (string, error) `json:"-"`
	// Recognize reports a pane that runs this CLI from its title and its
	// screen (what --provider auto asks). Its foreground command is matched
	// by the registry, the same way for every provider: by Name.
	Recognize func(title, capture string) bool `json:"-"`
	// Transcript is how the CLI's transcript shows the user's messages:
	// the check at the end reads with it what the agent took (Submitted).
	// The zero Transcript cannot tell.
	Transcript Transcript `json:"-"`
}

// Submitted is Transcript's reading of a capture with its scrollback
// against text, the prompt as pasted (handoff.SubmissionReader).
func (p Provider) Submitted(capture, text string) handoff.Submission {
	return p.Transcript.Read(capture, text)
}

// ErrNoAssistantMessage is wrapped by a Provider's LastMessage error when
// the capture holds no assistant message after the last prompt (or none at
// all): a reply from an earlier turn is never passed off as the answer.
var ErrNoAssistantMessage = errors.New("no assistant message on the screen")

// Classify is Read's verdict (handoff.Classifier).
func (p Provider) Classify(capture, title string) handoff.Classification {
	return p.Read(capture, title)
}

// LastMessage is Last's message; its error names the provider
// (handoff.Classifier).
func (p Provider) LastMessage(capture string) (string, error) {
	msg, err := p.Last(capture)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.Name, err)
	}
	return msg, nil
}

// Reading is one provider's reading of a capture, as its read function
// makes it: what the screen shows, decided with the pane title.
type Reading interface {
	// Decide is the status the reading shows, with the pane title ("" when
	// unknown), and the reason: the signal that decided it.
	Decide(title string) (status handoff.Status, reason string)
	// Found is what the reading found (Classification.Signals, of the
	// provider's own Signals type) and the text an error status quotes.
	Found() (signals any, errText string)
}

// Reader is the Read of a provider whose read makes a Reading of a capture:
// the one place a reading becomes a Classification (Verdict), so a
// provider writes only how it reads and decides.
func Reader[R Reading](read func(capture string) R) func(capture, title string) handoff.Classification {
	return func(capture, title string) handoff.Classification {
		r := read(capture)
		status, reason := r.Decide(title)
		signals, errText := r.Found()
		return Verdict(status, reason, signals, errText)
	}
}

// Verdict is a Classification whose Detail is errText only when the status
// is an error: what the screen said then is quoted in the wait's error.
func Verdict(status handoff.Status, reason string, signals any, errText string) handoff.Classification {
	c := handoff.Classification{Status: status, Reason: reason, Signals: signals}
	if status == handoff.StatusError {
		c.Detail = errText
	}
	return c
}

// Chrome kinds: what a provider found at the bottom of a screen (its
// Signals.Chrome).
const (
	ChromeNone     = "none"     // neither composer nor dialog at the bottom
	ChromeComposer = "composer" // the composer, ready for a prompt
	ChromeDialog   = "dialog"   // a dialog that waits for a choice
)

// ChromeSignals are what a provider that reads its chrome first found at
// the bottom of a screen, embedded in its Signals: the part every such
// provider reports. Line numbers count from the end of the capture (1 =
// last line); 0 means not found.
type ChromeSignals struct {
	// Chrome is what sits at the bottom: ChromeComposer, ChromeDialog or
	// ChromeNone.
	Chrome string `json:"chrome"`
	// Composer is the composer's (or editor's) first line: a draft, a
	// placeholder or a folded paste; ComposerLine where it is.
	Composer     string `json:"composer,omitempty"`
	ComposerLine int    `json:"composer_line"`
	// Dialog is what made the bottom a dialog (its chosen option, its
	// title or its hint line: the provider says which).
	Dialog string `json:"dialog,omitempty"`
	// Busy is the line that says a turn is running (a busy or working
	// line, a footer), BusyLine where it is.
	Busy     string `json:"busy,omitempty"`
	BusyLine int    `json:"busy_line"`
}

// Reasons (handoff.Classification.Reason) that mean the same for every
// provider with a composer and a history of cells: each names the signal
// that decided the status.
const (
	ReasonEmpty       = "empty capture: nothing on the screen"
	ReasonNoComposer  = "no composer and no sign of work on the screen"
	ReasonError       = "an API error is the newest cell after the last prompt"
	ReasonCompleted   = "the composer is ready and a reply follows the last prompt"
	ReasonIdle        = "the composer is ready and nothing follows the last prompt"
	ReasonIdleNoTurns = "the composer is ready and no prompt is on the screen"
)

// Cell kinds a provider's history reports (Signals.Newest, Signals.Reply):
// the kinds its cells share; a provider may add its own.
const (
	CellMessage = "message" // an assistant message
	CellTool    = "tool"    // a tool call
	CellError   = "error"   // an API error
	CellOther   = "other"   // any other text where a cell starts
)

// Signal shortens a cleaned line for a provider's signals (at most 160
// bytes, at a rune boundary) and copies it: a cleaned line lives in its
// walk's arena, which the signals must not keep alive.
func Signal(s string) string { return strings.Clone(Excerpt(s, 160)) }
