package handoff

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrPromptNotTaken is the Kind of a wait's error when the agent's own
// screen, read at the moment the dispatch would end Done, shows that it
// did not take this prompt whole and once: the prompt submitted twice,
// split into several user messages, or something else submitted in its
// place or after it (the CLI's paste placeholder, a fragment). The answer
// is archived, never returned; the error quotes what the screen showed.
var ErrPromptNotTaken = errors.New("the agent did not take the prompt whole and once")

// Taken is what one user message of an agent's transcript is, read
// against the prompt a dispatch sent.
type Taken int

// What a user message can be.
const (
	// TakenUnknown: the message cannot be read (its beginning scrolled
	// off, or the CLI shows it cut).
	TakenUnknown Taken = iota
	// TakenWhole: this prompt whole (its head and its tail, the tail
	// carrying the dispatch's receipt).
	TakenWhole
	// TakenFold: the CLI's fold of a paste, showing the prompt's own size.
	TakenFold
	// TakenOther: another text (the paste's placeholder submitted as the
	// message, a piece of the prompt, another prompt).
	TakenOther
)

// String names the kind for a person and the trace.
func (t Taken) String() string {
	switch t {
	case TakenWhole:
		return "the prompt whole"
	case TakenFold:
		return "its fold"
	case TakenOther:
		return "another text"
	}
	return "cannot tell"
}

// takenNames are the kinds' names in JSON (the replay format).
var takenNames = [...]string{TakenUnknown: "unknown", TakenWhole: "whole", TakenFold: "fold", TakenOther: "other"}

// MarshalText names the kind: unknown, whole, fold or other.
func (t Taken) MarshalText() ([]byte, error) {
	if t < 0 || int(t) >= len(takenNames) {
		return nil, fmt.Errorf("handoff: no user message kind %d", int(t))
	}
	return []byte(takenNames[t]), nil
}

// UnmarshalText reads a kind's name.
func (t *Taken) UnmarshalText(b []byte) error {
	for i, n := range takenNames {
		if n == string(b) {
			*t = Taken(i)
			return nil
		}
	}
	return fmt.Errorf("handoff: unknown user message kind %q (known: %v)", b, takenNames)
}

// Message is one user message a transcript shows: what it is, and a brief
// quote of it.
type Message struct {
	Taken Taken  `json:"taken"`
	Quote string `json:"quote,omitempty"`
}

// Submission is what an agent's transcript shows it took since a prompt
// was submitted: the user messages from the first that is this prompt
// (whole, or its fold) on, oldest first. Tell is "" when the screen can
// tell; otherwise it says why it cannot (a full-screen CLI that redraws,
// the prompt scrolled off, no reader for this CLI): a Submission that
// cannot tell never fails a dispatch.
type Submission struct {
	Messages []Message `json:"messages,omitempty"`
	Tell     string    `json:"cannot_tell,omitempty"`
}

// CannotTell is a Submission that says why the screen cannot tell.
func CannotTell(why string) Submission { return Submission{Tell: why} }

// Problem says what the transcript shows instead of this prompt taken
// whole and once; "" when it shows exactly that, or cannot tell (one
// message whose start scrolled off).
func (s Submission) Problem() string {
	n := len(s.Messages)
	if s.Tell != "" || n == 0 || n == 1 && s.Messages[0].Taken != TakenOther {
		return ""
	}
	ours, quotes := 0, make([]string, 0, n)
	for _, m := range s.Messages {
		if m.Taken == TakenWhole || m.Taken == TakenFold {
			ours++
		}
		quotes = append(quotes, fmt.Sprintf("%s (%q)", m.Taken, m.Quote))
	}
	switch {
	case ours == n:
		return fmt.Sprintf("the prompt submitted %d times", n)
	case n == 1:
		return "the user message it took is not this prompt whole: " + quotes[0]
	}
	return fmt.Sprintf("%d user messages since the prompt was submitted: %s", n, strings.Join(quotes, ", "))
}

// SubmissionReader is a Classifier that can read the user messages its
// CLI's transcript shows: each provider reads its own screens (see
// screen.Transcript).
type SubmissionReader interface {
	// Submitted reads capture (the screen with its scrollback) against
	// text, the prompt as it was pasted (Inert and NormalizeLineBreaks
	// applied).
	Submitted(capture, text string) Submission
}

// SubmissionChecker is a Terminal that can read, now, what its agent took
// since text was sent (the tmux driver: a capture with history, read by
// the provider's SubmissionReader). The engine asks it at the moment a
// dispatch would end Done from its response file.
type SubmissionChecker interface {
	Submission(ctx context.Context, text string) (Submission, error)
}
