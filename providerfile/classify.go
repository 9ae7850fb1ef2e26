package providerfile

import (
	"fmt"
	"regexp"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ErrNoMessage is wrapped by LastMessage's error when no reply follows the
// last user prompt. It wraps screen.ErrNoAssistantMessage, as every
// provider's does.
var ErrNoMessage = fmt.Errorf("providerfile: %w", screen.ErrNoAssistantMessage)

// Reasons reported in handoff.Classification.Reason.
const (
	// ReasonEmpty is every provider's: screen's, not a copy of its words.
	ReasonEmpty       = screen.ReasonEmpty
	ReasonDialog      = "a dialog line (dialog.lines) is in the bottom region"
	ReasonDialogTitle = "the pane title matches dialog.title"
	ReasonError       = "an error line (error.lines) follows the last user prompt with no reply after it"
	ReasonWork        = "a sign of work (work.bottom) is in the bottom region"
	ReasonWorkTitle   = "the pane title matches work.title"
	ReasonJustSent    = "no ready prompt, and nothing follows the last user prompt: just sent"
	ReasonCompleted   = "a reply (message.start) follows the last user prompt"
	ReasonIdle        = "no reply follows the last user prompt"
)

// Signals are what the classifier found (Classification.Signals). Line
// numbers count from the end of the capture (1 = last line); 0: not found.
type Signals struct {
	LinesScanned int    `json:"lines_scanned"`
	PromptLine   int    `json:"prompt_line"`
	LastUser     string `json:"last_user,omitempty"`
	LastUserLine int    `json:"last_user_line"`
	ReplyLine    int    `json:"reply_line"`
	Work         string `json:"work,omitempty"`
	Dialog       string `json:"dialog,omitempty"`
	Error        string `json:"error,omitempty"`
}

// Classifier reads the screens of the CLI a provider file describes. It
// holds no state once built: one value may serve many panes concurrently.
type Classifier struct {
	file       File
	bottom     int
	work       []*regexp.Regexp
	workTitle  *regexp.Regexp
	ready      *regexp.Regexp
	errs       []*regexp.Regexp
	dialog     []*regexp.Regexp
	dialogTitl *regexp.Regexp
	user       *regexp.Regexp
	msgStart   *regexp.Regexp
	msgSkip    []*regexp.Regexp
	msgEnd     []*regexp.Regexp
	leaders    string
	modes      []*regexp.Regexp
}

var _ handoff.Classifier = (*Classifier)(nil)

// composer is the file's [composer] section as the shared rules.
func (c *Classifier) composer() screen.Composer {
	return screen.Composer{Leaders: c.leaders, Lead: handoff.PromptLead, Clear: c.file.Composer.Clear, Read: c.mode}
}

// Inert is the text to paste for a plain message (handoff.Composer).
func (c *Classifier) Inert(text string) string { return c.composer().Inert(text) }

// Mode reads the composer after a paste: the first composer.modes line of
// the bottom region, "" for none.
func (c *Classifier) Mode(capture string) string { return c.composer().Mode(capture) }

// ClearKeys are composer.clear, whatever the screen.
func (c *Classifier) ClearKeys(string) []string { return c.file.Composer.Clear }

func (c *Classifier) mode(capture string) string {
	for _, ln := range screen.Bottom(capture, c.bottom) {
		if matchAny(c.modes, ln.Text) {
			return "another mode (" + screen.Excerpt(ln.T, 80) + ")"
		}
	}
	return ""
}

// File returns the description the classifier was built from.
func (c *Classifier) File() File { return c.file }

// Provider is the described CLI as a provider value, the shape every
// shipped provider has (screen.Provider): the file's name, CLI and version,
// its composer and its rules. It recognises a pane by its command only (the
// file's name; docs/providers.md): a file says nothing a screen would be
// known by.
func (c *Classifier) Provider() screen.Provider {
	return screen.Provider{Name: c.file.Name, CLI: c.file.CLI, Version: c.file.Version, Composer: c.composer(),
		Read: c.Classify, Last: c.LastMessage, Recognize: func(string, string) bool { return false }}
}

func matchAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// reading is one backward walk: the bottom region, then the last turn.
type reading struct {
	nonBlank, scanned int
	promptLine        int
	promptStart       int // byte offset of the prompt line; len(capture) when none
	work, dialog      string
	userFound         bool
	lastUser          string
	lastUserLine      int
	replyLine         int
	message           int // byte offset of the last message's first line; -1: none
	errText           string
	capture           string
}

// read walks capture from the end. Lines are matched with escapes stripped
// and trailing blanks trimmed; leading blanks are kept, so indentation can
// tell a reply from a continuation line.
func (c *Classifier) read(capture string) reading {
	r := reading{message: -1, promptStart: len(capture), capture: capture}
	ls := screen.NewLines(capture)
	top := ls.Mark()
	var above screen.Mark
	for seen := 0; seen < c.bottom; {
		ln, ok := ls.PrevLine()
		if !ok {
			break
		}
		if ln.T == "" {
			continue
		}
		seen++
		r.nonBlank++
		if r.dialog == "" && matchAny(c.dialog, ln.Text) {
			r.dialog = screen.Excerpt(ln.T, 120)
		}
		if r.work == "" && matchAny(c.work, ln.Text) {
			r.work = screen.Excerpt(ln.T, 120)
		}
		if r.promptLine == 0 && c.ready.MatchString(ln.Text) {
			r.promptLine, r.promptStart, above = ln.N, ln.Start, ls.Mark()
		}
	}
	// The turn is read from right above the prompt (from the bottom when
	// there is none) up to the user prompt that starts it.
	if r.promptLine > 0 {
		ls.Reset(above)
	} else {
		ls.Reset(top)
		r.nonBlank = 0
	}
	for {
		ln, ok := ls.PrevLine()
		if !ok {
			break
		}
		if ln.T == "" {
			continue
		}
		r.nonBlank++
		if c.user.MatchString(ln.Text) {
			r.userFound, r.lastUser, r.lastUserLine = true, screen.Excerpt(ln.T, 120), ln.N
			break
		}
		if c.msgStart.MatchString(ln.Text) {
			if r.replyLine == 0 {
				r.replyLine = ln.N
			}
			if r.message < 0 && !matchAny(c.msgSkip, ln.Text) {
				r.message = ln.Start
			}
			continue
		}
		if r.errText == "" && r.replyLine == 0 && matchAny(c.errs, ln.Text) {
			r.errText = screen.Excerpt(ln.T, 200)
		}
	}
	r.scanned = ls.N()
	return r
}

// Classify reads a raw capture and the pane title into one of the five
// statuses. The precedence is the built-in providers': a dialog, then an
// error, then work, then the prompt.
func (c *Classifier) Classify(capture, title string) handoff.Classification {
	r := c.read(capture)
	sig := Signals{LinesScanned: r.scanned, PromptLine: r.promptLine, LastUser: r.lastUser, LastUserLine: r.lastUserLine,
		ReplyLine: r.replyLine, Work: r.work, Dialog: r.dialog, Error: r.errText}
	out := func(s handoff.Status, reason string) handoff.Classification {
		cl := handoff.Classification{Status: s, Reason: reason, Signals: sig}
		if s == handoff.StatusError && reason == ReasonError {
			cl.Detail = r.errText
		}
		return cl
	}
	switch {
	case r.nonBlank == 0 && strings.TrimSpace(capture) == "":
		return out(handoff.StatusError, ReasonEmpty)
	case r.dialog != "":
		return out(handoff.StatusWaitingUserAnswer, ReasonDialog)
	case c.dialogTitl != nil && c.dialogTitl.MatchString(title):
		return out(handoff.StatusWaitingUserAnswer, ReasonDialogTitle)
	case r.errText != "":
		return out(handoff.StatusError, ReasonError)
	case r.work != "":
		return out(handoff.StatusProcessing, ReasonWork)
	case c.workTitle != nil && c.workTitle.MatchString(title):
		return out(handoff.StatusProcessing, ReasonWorkTitle)
	case r.promptLine == 0 && r.userFound && r.replyLine == 0:
		return out(handoff.StatusProcessing, ReasonJustSent)
	case r.replyLine > 0:
		return out(handoff.StatusCompleted, ReasonCompleted)
	}
	return out(handoff.StatusIdle, ReasonIdle)
}

// LastMessage returns the bottom-most reply after the last user prompt
// (message.start, not message.skip): the first line's text after the start
// pattern's match, then each line down to a message.end line, the next
// start or the prompt, with up to that many leading blanks dropped.
func (c *Classifier) LastMessage(capture string) (string, error) {
	r := c.read(capture)
	if r.message < 0 {
		if r.userFound {
			return "", fmt.Errorf("%w after the last user prompt (%q)", ErrNoMessage, r.lastUser)
		}
		return "", ErrNoMessage
	}
	var (
		ls     screen.Lines
		out    []string
		indent int
	)
	ls.Init(capture)
	for pos := r.message; pos < r.promptStart; {
		ln, next := ls.LineAt(pos)
		pos = next
		if len(out) == 0 {
			m := c.msgStart.FindStringIndex(ln.Text)
			indent = len([]rune(ln.Text[:m[1]]))
			out = append(out, ln.Text[m[1]:])
			continue
		}
		if ln.T != "" && (c.msgStart.MatchString(ln.Text) || matchAny(c.msgEnd, ln.Text)) {
			break
		}
		out = append(out, screen.DropIndent(ln.Text, indent))
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	msg := strings.Join(out, "\n")
	if strings.TrimSpace(msg) == "" {
		return "", fmt.Errorf("%w: the reply is empty", ErrNoMessage)
	}
	return msg, nil
}
