package tmuxdriver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// Defaults for Options.
const (
	DefaultHistory           = 200
	DefaultLastOutputHistory = 2000
	// DefaultEnterDelay separates the paste from Enter: agent TUIs treat keys
	// that arrive within ~100 ms of a paste as part of it.
	DefaultEnterDelay = 250 * time.Millisecond
	// DefaultVerifyTimeout is how long Send watches the screen for the
	// submission before it presses Enter once more.
	DefaultVerifyTimeout = time.Second
)

// DefaultShells lists the commands that mean a pane is back at a shell
// prompt (its agent exited).
func DefaultShells() []string {
	return []string{"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "ash", "nu", "pwsh"}
}

// Options configures a Pane. Target and Classifier are required.
type Options struct {
	// Server is the tmux server the pane lives on.
	Server Server
	// Target is any tmux target: "session", "session:window.pane", "%id".
	Target string
	// Classifier reads the captured screen and title into a status: the
	// agent CLI's own (package provider picks one by name). Required
	// unless Pick is set.
	Classifier handoff.Classifier
	// Pick, when Classifier is nil, names the provider on the pane's
	// first look (--provider auto): its classifier, composer and pause
	// before Enter. Provider says which.
	Pick Picker
	// History is how many scrollback lines each poll captures above the
	// visible screen (DefaultHistory if zero).
	History int
	// LastOutputHistory is the scrollback captured for LastOutput
	// (DefaultLastOutputHistory if zero).
	LastOutputHistory int
	// Escapes captures colours and attributes too (capture-pane -e), for a
	// classifier that reads them.
	Escapes bool
	// EnterDelay is the pause between the paste and Enter
	// (DefaultEnterDelay if zero).
	EnterDelay time.Duration
	// VerifyTimeout is how long Send waits for the screen to show the prompt
	// was submitted before pressing Enter again (DefaultVerifyTimeout if zero).
	VerifyTimeout time.Duration
	// Shells are the foreground commands that mean the agent exited to a
	// shell; DefaultShells() if nil.
	Shells []string
	// AllowShell turns the shell check off, for an agent that is itself a
	// shell (or runs under one that stays in the foreground).
	AllowShell bool
	// Runner carries the pane's tmux commands; nil runs each as its own
	// tmux process on Server. A tmuxcontrol.Runner carries them over one
	// control-mode client instead (no process per poll), falling back to
	// Server.Run by itself.
	Runner Runner
	// Processes tells when the pane's process started, for Identity;
	// HostProcesses if nil.
	Processes ProcessStarts
	// Composer is what the agent's message box does with a prompt: Send
	// pastes Composer.Inert's text and looks at the composer before Enter.
	// If nil, the Classifier's own when it is a handoff.Composer (every
	// provider's is); a classifier that is none leaves the text as it is
	// and looks at nothing.
	Composer handoff.Composer
}

// Runner runs one tmux command line, as Server.Run does.
type Runner interface {
	Run(ctx context.Context, stdin io.Reader, args ...string) (string, error)
}

// Pane is one agent's tmux pane. It implements handoff.Terminal and
// handoff.Sender. It is safe for concurrent use; each call is one or a few
// tmux processes.
type Pane struct {
	o Options
	// fp fingerprints the screen the last Status call read.
	fp atomic.Uint64
	// last is the classification of that screen.
	last atomic.Pointer[handoff.Classification]
	// pick is the provider Options.Pick names; nil without Pick.
	pick *picking
}

// New returns the Pane for o, with defaults filled in. It does not contact
// tmux: a missing server or target shows in the first call.
func New(o Options) (*Pane, error) {
	if o.Target == "" {
		return nil, errors.New("tmuxdriver: a target is required (session:window.pane or %id)")
	}
	if o.Classifier == nil && o.Pick == nil {
		return nil, errors.New("tmuxdriver: a classifier is required (the agent CLI's, e.g. from provider.Lookup)")
	}
	var pick *picking
	if o.Classifier == nil {
		pick = &picking{delayGiven: o.EnterDelay > 0}
	}
	if err := o.Server.validate(); err != nil {
		return nil, err
	}
	if o.History <= 0 {
		o.History = DefaultHistory
	}
	if o.LastOutputHistory <= 0 {
		o.LastOutputHistory = DefaultLastOutputHistory
	}
	if o.EnterDelay <= 0 {
		o.EnterDelay = DefaultEnterDelay
	}
	if o.VerifyTimeout <= 0 {
		o.VerifyTimeout = DefaultVerifyTimeout
	}
	if o.Shells == nil {
		o.Shells = DefaultShells()
	}
	if o.Composer == nil && o.Classifier != nil {
		o.Composer, _ = o.Classifier.(handoff.Composer)
	}
	return &Pane{o: o, pick: pick}, nil
}

// Target is the tmux target the pane was opened with.
func (p *Pane) Target() string { return p.o.Target }

// Server is the tmux server the pane lives on.
func (p *Pane) Server() Server { return p.o.Server }

// Snapshot is one observation of the pane: what it shows and whether its
// agent still runs.
type Snapshot struct {
	Capture string // screen plus scrollback, wrapped lines joined
	Title   string // #{pane_title}, set by the agent (Codex: spinner while busy)
	Command string // #{pane_current_command}, the foreground process
	PID     int    // #{pane_pid}, the process the pane started
	Dead    bool   // the pane's process exited (remain-on-exit keeps it)
	// InMode: the pane is in copy mode or another mode (someone scrolled
	// back in it); keys go to the mode, not to the agent.
	InMode bool
	// DeadStatus is the exit status of a dead pane's process, -1 when
	// unknown (killed by a signal, or not yet reaped).
	DeadStatus int
	// DeadSignal is the signal that killed a dead pane's process, 0 if none.
	DeadSignal int
	// Classification is the classifier's reading of Capture and Title; it is
	// left empty when the pane is dead or at a shell.
	Classification handoff.Classification
}

// run runs a tmux command line through the Runner, or on the server.
func (p *Pane) run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	if p.o.Runner != nil {
		return p.o.Runner.Run(ctx, stdin, args...)
	}
	return p.o.Server.Run(ctx, stdin, args...)
}

// Observe reads the pane once — screen, title and liveness in a single tmux
// process — and classifies it. A dead pane or one back at a shell returns
// the snapshot with an error wrapping ErrPaneDead or ErrAgentExited.
func (p *Pane) Observe(ctx context.Context) (Snapshot, error) {
	snap, err := p.read(ctx, p.o.History)
	if err != nil {
		return snap, err
	}
	if err := p.alive(snap); err != nil {
		return snap, err
	}
	snap.Classification = p.o.Classifier.Classify(snap.Capture, snap.Title)
	return snap, nil
}

// Look reads the pane once, as Observe does, without classifying it: its
// foreground command, its title and its screen, what recognises the CLI in
// it before its classifier is known (provider.Recognize). A dead pane or
// one back at a shell is an error, as for Observe.
func (p *Pane) Look(ctx context.Context) (command, title, capture string, err error) {
	snap, err := p.read(ctx, p.o.History)
	if err == nil {
		err = p.alive(snap)
	}
	return snap.Command, snap.Title, snap.Capture, err
}

// Status observes the pane and returns its classified status. A pane that
// is gone (killed, dead, at a shell, server down, tmux missing) is
// StatusError with an error saying which; it wraps handoff.ErrTerminalGone.
// A screen classified as an error is StatusError too, with an error wrapping
// ErrScreenError that quotes what the agent showed, so the wait's failure
// says why and not only that. Any other failure (a tmux call that timed
// out, an answer that cannot be parsed, a live pane that still shows
// nothing after BlankWait: ErrBlankScreen) is status "" with the error: one
// failed look, which the engine retries.
func (p *Pane) Status(ctx context.Context) (handoff.Status, error) {
	var snap Snapshot
	deadline := time.Now().Add(BlankWait)
	for {
		var err error
		snap, err = p.Observe(ctx)
		if err != nil {
			if errors.Is(err, handoff.ErrTerminalGone) {
				return handoff.StatusError, err
			}
			return "", err
		}
		if strings.TrimSpace(snap.Capture) != "" {
			break
		}
		// A full-screen agent between two frames: look again shortly.
		if time.Now().After(deadline) {
			return "", ErrBlankScreen
		}
		if err := fsm.Sleep(ctx, blankRetry); err != nil {
			return "", err
		}
	}
	p.fp.Store(fingerprint(snap.Capture))
	c := snap.Classification
	p.last.Store(&c)
	if c.Status == handoff.StatusError {
		return c.Status, fmt.Errorf("%w: %s", ErrScreenError, screenErrorDetail(c))
	}
	return c.Status, nil
}

// BlankWait is how long Status keeps looking at a live pane that shows
// nothing before it reports ErrBlankScreen: OpenCode leaves its screen blank
// for up to about a second when it leaves its home view on a loaded
// machine. blankRetry is the pause between two looks.
const (
	BlankWait  = 2 * time.Second
	blankRetry = 100 * time.Millisecond
)

// LastClassification is the classifier's reading of the screen the last
// Status call read (handoff.Explainer); ok is false before the first, and a
// gone pane or a failed look leaves the previous reading.
func (p *Pane) LastClassification() (handoff.Classification, bool) {
	if c := p.last.Load(); c != nil {
		return *c, true
	}
	return handoff.Classification{}, false
}

// Fingerprint identifies the screen the last Status call read (see
// handoff.Fingerprinter); 0 before the first.
func (p *Pane) Fingerprint() uint64 { return p.fp.Load() }

func fingerprint(screen string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(screen))
	return h.Sum64()
}

// screenErrorDetail is the error line the classifier quoted, or its reason
// when it quoted none.
func screenErrorDetail(c handoff.Classification) string {
	if c.Detail != "" {
		return c.Detail
	}
	return c.Reason
}

// LastOutput returns the classifier's last assistant message from a larger
// capture, for the fallback path.
func (p *Pane) LastOutput(ctx context.Context) (string, error) {
	snap, err := p.read(ctx, p.o.LastOutputHistory)
	if err != nil {
		return "", err
	}
	msg, err := p.o.Classifier.LastMessage(snap.Capture)
	if err != nil {
		return "", fmt.Errorf("last output of pane %s: %w", p.o.Target, err)
	}
	return msg, nil
}

// Submission is the check at the end (handoff.SubmissionChecker): what the
// agent's transcript shows it took since text was sent, read by the
// classifier (a handoff.SubmissionReader; one that is none cannot tell) off
// a capture with LastOutputHistory lines of scrollback. text is compared
// as Send pasted it.
func (p *Pane) Submission(ctx context.Context, text string) (handoff.Submission, error) {
	if err := p.picked(ctx); err != nil {
		return handoff.Submission{}, err
	}
	sr, ok := p.o.Classifier.(handoff.SubmissionReader)
	if !ok {
		return handoff.CannotTell("the classifier reads no user messages"), nil
	}
	snap, err := p.read(ctx, p.o.LastOutputHistory)
	if err != nil {
		return handoff.Submission{}, err
	}
	text = handoff.NormalizeLineBreaks(text)
	if p.o.Composer != nil {
		text = p.o.Composer.Inert(text)
	}
	return sr.Submitted(snap.Capture, text), nil
}

// Unsent is the last look at a failed dispatch (handoff.UnsentChecker):
// whether the agent's composer still holds text, as Send pasted it, whole
// (the Composer, a handoff.PasteReader, reads PasteWhole: the text's end
// or the CLI's fold of its size) while the agent is quiet and its
// transcript shows no user message of it. seen quotes the composer. A
// Composer that cannot read a paste never says unsent. Nothing is pressed:
// the prompt is left where it is.
func (p *Pane) Unsent(ctx context.Context, text string) (seen string, unsent bool, err error) {
	if err := p.picked(ctx); err != nil {
		return "", false, err
	}
	pr, ok := p.o.Composer.(handoff.PasteReader)
	if !ok {
		return "", false, nil
	}
	snap, err := p.Observe(ctx)
	if err != nil {
		return "", false, err
	}
	got, seen := pr.Pasted(snap.Capture, p.o.Composer.Inert(handoff.NormalizeLineBreaks(text)))
	if got != handoff.PasteWhole || !snap.Classification.Status.Quiet() {
		return seen, false, nil
	}
	sub, err := p.Submission(ctx, text)
	if err != nil {
		return seen, false, err
	}
	for _, m := range sub.Messages {
		if m.Taken == handoff.TakenWhole || m.Taken == handoff.TakenFold {
			return seen, false, nil // it was submitted, and is in the composer again
		}
	}
	return seen, true, nil
}

// read runs display-message (liveness and title) and capture-pane in one
// tmux process. The metadata comes first, framed by a random marker, so a
// screen showing anything at all cannot be mistaken for it.
func (p *Pane) read(ctx context.Context, history int) (Snapshot, error) {
	mark := "<" + nonce() + ">"
	format := mark + "#{pane_dead}" + mark + "#{pane_dead_status}" + mark + "#{pane_dead_signal}" + mark +
		"#{pane_pid}" + mark + "#{pane_in_mode}" + mark + "#{pane_current_command}" + mark + "#{pane_title}" + mark + "end\n"
	args := []string{"display-message", "-p", "-t", p.o.Target, format, ";",
		"capture-pane", "-p", "-J", "-S", "-" + strconv.Itoa(history), "-t", p.o.Target}
	if p.o.Escapes {
		args = append(args, "-e")
	}
	out, err := p.run(ctx, nil, args...)
	if err != nil {
		return Snapshot{}, p.paneErr(err)
	}
	meta, capture, ok := strings.Cut(out, mark+"end\n")
	fields := strings.Split(meta, mark)
	if !ok || len(fields) != 8 || fields[0] != "" {
		return Snapshot{}, fmt.Errorf("tmux pane %s: unexpected display-message output %q", p.o.Target, truncate(meta, 200))
	}
	snap := Snapshot{
		Capture:    capture,
		Dead:       fields[1] == "1",
		DeadStatus: -1,
		InMode:     fields[5] == "1",
		Command:    fields[6],
		Title:      fields[7],
	}
	// tmux marks a pane dead when its pty closes, and learns the exit
	// status or signal a moment later: either may still be empty.
	if n, err := strconv.Atoi(fields[2]); err == nil {
		snap.DeadStatus = n
	}
	snap.DeadSignal, _ = strconv.Atoi(fields[3])
	snap.PID, _ = strconv.Atoi(fields[4])
	return snap, p.pickOn(snap)
}

// paneErr names the pane in a tmux error; a target tmux cannot find was
// usually killed.
func (p *Pane) paneErr(err error) error {
	if errors.Is(err, ErrTargetNotFound) {
		return fmt.Errorf("pane %s is gone: %w", p.o.Target, err)
	}
	return fmt.Errorf("pane %s: %w", p.o.Target, err)
}

func (p *Pane) alive(s Snapshot) error {
	if s.Dead {
		how := "exited"
		switch {
		case s.DeadSignal > 0:
			how = fmt.Sprintf("was killed by signal %d", s.DeadSignal)
		case s.DeadStatus >= 0:
			how = fmt.Sprintf("exited with status %d", s.DeadStatus)
		}
		return fmt.Errorf("%w: pane %s: its process %s", ErrPaneDead, p.o.Target, how)
	}
	if !p.o.AllowShell && slices.Contains(p.o.Shells, s.Command) {
		return fmt.Errorf("%w: pane %s is running %s, not the agent", ErrAgentExited, p.o.Target, s.Command)
	}
	return nil
}

// Send delivers text to the agent as one message, inert: text that holds
// a control character other than tab and line breaks is refused
// (handoff.CheckPrompt; nothing reaches the pane), line breaks are sent as
// LF, and the Composer's Inert text is pasted, so the message cannot open
// a shell or a command in the agent's composer.
//
// It loads the text into a uniquely named tmux buffer from stdin, pastes
// it with bracketed paste (deleting the buffer), waits EnterDelay and
// until the paste shows (for up to VerifyTimeout: on a loaded machine an
// agent draws it late). It then waits until the Composer, a
// handoff.PasteReader, reads the prompt whole on two looks in a row (the
// CLI's fold with the prompt's size, or the text's end), for up to
// PasteWait; a fold of another size, a turn started with no Enter, or the
// wait running out clears the composer and fails with an error wrapping
// handoff.ErrPasteIncomplete that quotes what it showed (a Composer that
// cannot read the paste is waited for until the screen holds still). If
// the Composer reads another mode (a shell mode, a command menu), it
// presses the Composer's clear keys and fails with an error wrapping
// handoff.ErrComposerMode. In both cases no Enter is pressed.
//
// Otherwise it presses Enter as a separate key, and again, up to
// maxEnters times, only while the screen proves the last was not taken:
// the agent read it (the pane's terminal holds no unread input), still
// shows the same prompt whole and shows no turn (see enterIgnored). An
// Enter pressed twice on a loaded CLI can submit twice.
//
// Before the paste, a quiet agent's composer that already holds a fold or
// text the Composer reads (a refused paste left behind, a person's draft)
// is refused with handoff.ErrComposerMode and left as it is: the prompt
// would join it (see lookBeforePaste). After a refused paste the composer
// is cleared only as far as a settled screen proves it empty; when it
// cannot be, the error also wraps ErrComposerNotCleared and says what it
// still holds (see clearRefused).
//
// Send refuses a pane that is dead or back at a shell: a prompt pasted into
// a shell would run as commands. A pane in copy mode (scrolled back) is
// taken out of it first, or the mode would swallow Enter.
func (p *Pane) Send(ctx context.Context, text string) error {
	if strings.TrimSpace(text) == "" {
		return errors.New("tmuxdriver: refusing to send an empty prompt")
	}
	if err := handoff.CheckPrompt(text); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if err := p.picked(ctx); err != nil {
		return err
	}
	text = handoff.NormalizeLineBreaks(text)
	if p.o.Composer != nil {
		text = p.o.Composer.Inert(text)
	}
	snap, err := p.Observe(ctx)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if err := p.lookBeforePaste(snap, text); err != nil {
		return err
	}
	if snap.InMode {
		// Someone scrolled back in the pane: copy mode would take the Enter.
		if _, err := p.run(ctx, nil, "copy-mode", "-q", "-t", p.o.Target); err != nil {
			return fmt.Errorf("send: leave copy mode: %w", p.paneErr(err))
		}
	}
	buf := "handoff-fsm-" + nonce()
	paste := []string{"paste-buffer", "-p", "-d"}
	if k, ok := p.o.Composer.(handoff.LineBreakKeeper); ok && k.PasteLF() {
		paste = append(paste, "-r") // line breaks as LF: see handoff.LineBreakKeeper
	}
	paste = append(paste, "-b", buf, "-t", p.o.Target)
	// The screen right before the paste, taken in the same tmux process.
	before, err := p.run(ctx, strings.NewReader(text), append([]string{
		"capture-pane", "-p", "-J", "-t", p.o.Target, ";",
		"load-buffer", "-b", buf, "-", ";"}, paste...)...)
	if err != nil {
		p.dropBuffer(buf)
		return fmt.Errorf("send: paste: %w", p.paneErr(err))
	}
	if err := fsm.Sleep(ctx, p.o.EnterDelay); err != nil {
		return err
	}
	now, err := p.run(ctx, nil, "capture-pane", "-p", "-J", "-t", p.o.Target)
	if err != nil {
		return fmt.Errorf("send: paste: %w", p.paneErr(err))
	}
	if significant(now) == significant(before) {
		// Not drawn yet: wait for it, then give the agent EnterDelay
		// after it, or it takes the Enter as part of the paste.
		if shown, err := p.awaitChange(ctx, before, p.o.VerifyTimeout); err != nil {
			return fmt.Errorf("send: paste: %w", err)
		} else if shown {
			if err := fsm.Sleep(ctx, p.o.EnterDelay); err != nil {
				return err
			}
		}
	}
	look, seen, err := p.awaitPaste(ctx, text)
	if err != nil {
		return err
	}
	if err := p.lookBeforeEnter(ctx, look, text); err != nil {
		return err
	}
	return p.enter(ctx, text, seen)
}

// lookBeforePaste refuses to paste into a quiet agent's composer that
// already holds something (handoff.Held: a fold, or text its Composer reads
// as a paste or a draft, not the CLI's placeholder): a paste would join
// it, and Enter would submit both as one message. It is not cleared: it
// may be a person's draft. A composer in another mode is left to the look
// after the paste (lookBeforeEnter); a busy agent's composer (a steering
// hint where the draft goes) cannot be read so.
func (p *Pane) lookBeforePaste(snap Snapshot, text string) error {
	if p.o.Composer == nil || !snap.Classification.Status.Quiet() || p.o.Composer.Mode(snap.Capture) != "" {
		return nil
	}
	seen, held := handoff.Held(p.o.Composer, snap.Capture, text)
	if !held {
		return nil
	}
	return fmt.Errorf("send: pane %s: %w: before the paste its composer already held %s, which Send did not put there; a paste would join it, so nothing was pasted (empty the agent's composer, or send what it holds, then send again)", p.o.Target, handoff.ErrComposerMode, quoteSeen(seen))
}

// enter presses Enter, and again only when the screen proves the last one
// was not taken (see enterIgnored). An Enter pressed twice on a loaded CLI
// can submit twice: Qwen Code read two queued Enters against the same
// composer state and sent its paste's placeholder as a second message.
func (p *Pane) enter(ctx context.Context, text, seen string) error {
	for attempt := 1; ; attempt++ {
		// The screen right before Enter, taken in the same tmux process
		// that presses it.
		pasted, err := p.run(ctx, nil,
			"capture-pane", "-p", "-J", "-t", p.o.Target, ";",
			"send-keys", "-t", p.o.Target, "Enter")
		if err != nil {
			return fmt.Errorf("send: enter %d: %w", attempt, p.paneErr(err))
		}
		ignored, err := p.enterIgnored(ctx, text, seen, pasted, time.Duration(attempt)*p.o.VerifyTimeout)
		if err != nil || !ignored {
			return err
		}
		if attempt == maxEnters {
			return fmt.Errorf("send: pane %s: %w: after %d Enters its composer still shows the prompt (%s) and no turn", p.o.Target, handoff.ErrEnterNotTaken, attempt, seen)
		}
	}
}

// lookBeforeEnter reads the composer in look, the screen that held still
// after the paste: a composer in another mode is cleared, proven empty of
// text's paste (see clearRefused), and the error says what it showed.
func (p *Pane) lookBeforeEnter(ctx context.Context, look, text string) error {
	if p.o.Composer == nil {
		return nil
	}
	mode := p.o.Composer.Mode(look)
	if mode == "" {
		return nil
	}
	return p.refuse(ctx, look, text, handoff.ErrComposerMode, "after the paste it showed "+mode)
}

// ClearUnsent looks for text that a process which died after its paste
// and before its Enter left in the agent's composer: if the agent is quiet
// and its composer's draft (handoff.DraftReader) is the start of text as
// Send pastes it, it presses the composer's clear keys once and watches
// the screen until the draft is gone. It reports whether the draft was text's
// and is gone. A composer it cannot read, or one holding anything else, is
// left alone (false): a person's draft is never cleared.
func (p *Pane) ClearUnsent(ctx context.Context, text string) (bool, error) {
	if err := p.picked(ctx); err != nil {
		return false, err
	}
	dr, ok := p.o.Composer.(handoff.DraftReader)
	if !ok {
		return false, nil
	}
	text = handoff.NormalizeLineBreaks(text)
	text = p.o.Composer.Inert(text)
	snap, err := p.Observe(ctx)
	if err != nil {
		return false, err
	}
	if !snap.Classification.Status.Quiet() || !draftOf(dr.Draft(snap.Capture), text) {
		return false, nil
	}
	// The keys are pressed once: pressed again on a composer already
	// empty, Ctrl-C quits Codex (and the simulated agent). A loaded agent
	// may redraw late, so the screen is watched a while instead.
	for _, k := range p.o.Composer.ClearKeys(snap.Capture) {
		if _, err := p.run(ctx, nil, "send-keys", "-t", p.o.Target, k); err != nil {
			return false, fmt.Errorf("clear the composer: %w", p.paneErr(err))
		}
		if err := fsm.Sleep(ctx, 150*time.Millisecond); err != nil {
			return false, err
		}
	}
	for deadline := time.Now().Add(unsentClearWait); ; {
		if snap, err = p.Observe(ctx); err != nil {
			return false, err
		}
		if !draftOf(dr.Draft(snap.Capture), text) {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("pane %s: the composer still holds the prompt %v after its clear keys", p.o.Target, unsentClearWait)
		}
		if err := fsm.Sleep(ctx, 200*time.Millisecond); err != nil {
			return false, err
		}
	}
}

// unsentClearWait is how long ClearUnsent watches for the draft to go.
const unsentClearWait = 10 * time.Second

// draftOf says whether draft, a composer's first line as the screen shows
// it, is the start of text's first line.
func draftOf(draft, text string) bool {
	d := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(draft), "…"))
	first, _, _ := strings.Cut(strings.TrimLeft(text, "\n"), "\n")
	return d != "" && strings.HasPrefix(strings.TrimSpace(first), d)
}

// clearRounds is how often clearRefused presses the clear keys.
const clearRounds = 3

// maxEnters is how many times Send presses Enter while the agent, having
// read the last one, still shows the prompt whole and no turn (see
// enterIgnored). A busy agent (Gemini CLI under load, or right after a
// turn) can take an Enter as a new line in the paste, or ignore it.
const maxEnters = 4

// SendKeys types keys into the pane as tmux send-keys names them ("Enter",
// "y", "Down"), to answer a prompt; nothing is pasted and nothing else is
// pressed. A dead pane or one back at a shell is refused, as for Send.
func (p *Pane) SendKeys(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return errors.New("tmuxdriver: no keys to send")
	}
	if _, err := p.Observe(ctx); err != nil {
		return fmt.Errorf("send keys: %w", err)
	}
	args := append([]string{"send-keys", "-t", p.o.Target}, keys...)
	if _, err := p.run(ctx, nil, args...); err != nil {
		return fmt.Errorf("send keys: %w", p.paneErr(err))
	}
	return nil
}

// awaitChange polls the visible screen for up to d until it differs from
// before in more than blank lines (a swallowed Enter only adds an empty
// composer line).
func (p *Pane) awaitChange(ctx context.Context, before string, d time.Duration) (bool, error) {
	want := significant(before)
	deadline := time.Now().Add(d)
	for {
		if err := fsm.Sleep(ctx, 50*time.Millisecond); err != nil {
			return false, err
		}
		now, err := p.run(ctx, nil, "capture-pane", "-p", "-J", "-t", p.o.Target)
		if err != nil {
			return false, p.paneErr(err)
		}
		if significant(now) != want {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, nil
		}
	}
}

// awaitStill polls the visible screen until two looks 50 ms apart agree,
// or max has passed (an animated screen never holds still; Send then goes
// on as before), and returns the last look.
func (p *Pane) awaitStill(ctx context.Context, max time.Duration) (string, error) {
	deadline := time.Now().Add(max)
	prev := ""
	for first := true; ; first = false {
		now, err := p.run(ctx, nil, "capture-pane", "-p", "-J", "-t", p.o.Target)
		if err != nil {
			return "", p.paneErr(err)
		}
		if !first && significant(now) == prev {
			return now, nil
		}
		prev = significant(now)
		if time.Now().After(deadline) {
			return now, nil
		}
		if err := fsm.Sleep(ctx, 50*time.Millisecond); err != nil {
			return "", err
		}
	}
}

// significant is a screen without trailing spaces and blank lines.
func significant(screen string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(screen, "\n") {
		line = strings.TrimRight(line, " \t")
		if line != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// dropBuffer deletes a buffer a failed paste left behind. It uses its own
// short context: it must run even when the caller's was cancelled.
func (p *Pane) dropBuffer(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = p.run(ctx, nil, "delete-buffer", "-b", name)
}

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
