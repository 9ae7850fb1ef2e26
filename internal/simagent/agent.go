// Package simagent is a simulated Codex-like coding agent for demos and
// end-to-end tests. Run in a terminal (a tmux pane), it draws screens shaped
// like Codex 0.169's — composer, status line, footer, "◦ Working (Ns • esc
// to interrupt)", "› " user messages, "• " replies, "Worked for Ns" — sets the
// pane title (a braille spinner while busy), reads prompts as bracketed
// pastes followed by Enter, and answers by running the RESPONSE FILE
// INSTRUCTION's heredoc through /bin/sh.
//
// It reproduces the startup race for real: after Enter it keeps showing the
// previous turn's idle screen for a while before it starts working.
// Scenarios make it slow to start, forget the response file, or crash.
package simagent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// Scenario selects how the simulated agent behaves on each turn.
type Scenario string

// The scenarios.
const (
	// ScenarioNormal: a short startup race, work, the response file, idle.
	ScenarioNormal Scenario = "normal"
	// ScenarioSlowStart: as normal, with a startup (stale screen) twice as
	// long — still shorter than the demo's startup timeout (5 s).
	ScenarioSlowStart Scenario = "slow-start"
	// ScenarioNeverWrites: answers on screen only and never writes the
	// response file.
	ScenarioNeverWrites Scenario = "never-writes"
	// ScenarioCrash: exits in the middle of the turn.
	ScenarioCrash Scenario = "crash"
	// ScenarioAsks: as normal, but before writing the response file it
	// asks for approval (Codex's approval menu) and waits for y or Enter.
	// Not in the demo's list.
	ScenarioAsks Scenario = "asks"
	// ScenarioForgets: forgets the response file on a prompt, and writes it
	// when reminded (a prompt starting with "Reminder"; see
	// handoff.Reminder). Not in the demo's list.
	ScenarioForgets Scenario = "forgets"
	// ScenarioBounces: takes the Enter and shows Working a moment, then
	// drops the turn before the model gets anything and puts the prompt
	// back in its composer, unsent: a prompt that never left the composer
	// though the screen moved after Enter. Not in the demo's list.
	ScenarioBounces Scenario = "bounces"
)

// Scenarios lists the scenarios in the order the demo presents them.
func Scenarios() []Scenario {
	return []Scenario{ScenarioNormal, ScenarioSlowStart, ScenarioNeverWrites, ScenarioCrash}
}

// ErrCrashed is what Run returns in the crash scenario.
var ErrCrashed = errors.New("simulated agent crashed mid-turn")

// Defaults for Options.
const (
	DefaultStartup     = 1500 * time.Millisecond
	DefaultSlowStartup = 3 * time.Second
	DefaultWork        = 2 * time.Second
	DefaultStream      = time.Second
	// DefaultPasteBurst: an Enter this soon after a paste is taken as a
	// newline in the paste, as Codex does.
	DefaultPasteBurst = 80 * time.Millisecond
)

// Options configures the simulated agent.
type Options struct {
	Scenario Scenario
	// Startup is how long the previous turn's idle screen stays after Enter
	// (the startup race); by scenario if zero.
	Startup time.Duration
	// Work is how long the "Working" indicator shows (DefaultWork if zero).
	Work time.Duration
	// Stream is how long the reply streams with no indicator and only the
	// spinner title saying the turn runs (DefaultStream if zero).
	Stream time.Duration
	// PasteBurst: an Enter this soon after a paste is a newline in the
	// composer, not a submission (DefaultPasteBurst if zero; negative: off).
	PasteBurst time.Duration
	// Echo makes the response file hold exactly what the user asked (the
	// prompt without its RESPONSE FILE INSTRUCTION), for tests that check a
	// prompt arrived intact.
	Echo bool
	// PreviousTurn starts with a finished turn on screen, so the stale screen
	// of the startup race reads "completed", as between real turns.
	PreviousTurn bool
	// Model, Effort and Cwd fill the status line; Cwd's basename is the idle
	// pane title.
	Model, Effort, Cwd string
	// IdleLog, when set, is a file the agent appends the time of each turn's
	// end to (Unix nanoseconds, one per line, written right after the idle
	// screen is drawn), so a benchmark can tell the agent's delay from the
	// engine's.
	IdleLog string
	// PromptLog, when set, is a file the agent appends each prompt it takes
	// to (what the user asked, without the RESPONSE FILE INSTRUCTION, as a
	// JSON string, one a line), at the Enter that submits it: a soak test
	// proves no prompt was pasted twice by reading it.
	PromptLog string
	// Answer, when set, is what the agent writes to the response file
	// (instead of its generated answer, or the echo).
	Answer string
	// Answers, when set, are what the agent writes to the response file on
	// its first, second, … prompt; the last is repeated after that. It
	// takes precedence over Answer (tests of a review that sends work back).
	Answers []string
	// WorkJitter adds a random extra of up to this much to each turn's
	// work, so a benchmark's turns do not all end at the same point of the
	// poll interval.
	WorkJitter time.Duration
	// Redraw is how often a busy screen is redrawn (its spinner and
	// timer); DefaultRedraw if zero. Benchmarks of a hundred agents on a
	// small machine slow it so the agents' own drawing does not swamp it.
	Redraw time.Duration
	// WorkUntil, when set, is a file: each turn keeps working (after Work)
	// until it exists, so a test decides when the agent is done.
	WorkUntil string
}

// DefaultRedraw is how often a busy agent redraws, like Codex's spinner.
const DefaultRedraw = 100 * time.Millisecond

func (o Options) withDefaults() (Options, error) {
	switch o.Scenario {
	case "":
		o.Scenario = ScenarioNormal
	case ScenarioNormal, ScenarioSlowStart, ScenarioNeverWrites, ScenarioCrash, ScenarioForgets, ScenarioAsks, ScenarioBounces:
	default:
		return o, fmt.Errorf("unknown scenario %q: want one of normal, slow-start, never-writes, crash, forgets, asks, bounces", o.Scenario)
	}
	startup := DefaultStartup
	if o.Scenario == ScenarioSlowStart {
		startup = DefaultSlowStartup
	}
	o.Startup = positiveOr(o.Startup, startup)
	o.Work = positiveOr(o.Work, DefaultWork)
	o.Stream = positiveOr(o.Stream, DefaultStream)
	o.Redraw = positiveOr(o.Redraw, DefaultRedraw)
	o.PasteBurst = cmp.Or(o.PasteBurst, DefaultPasteBurst)
	o.Model = cmp.Or(o.Model, "sim-model")
	o.Effort = cmp.Or(o.Effort, "medium")
	if o.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, err
		}
		o.Cwd = wd
	}
	return o, nil
}

// positiveOr is d, or def when d is not positive.
func positiveOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Agent is one running simulated agent.
type Agent struct {
	o Options

	mu     sync.Mutex
	out    io.Writer
	screen Screen
	// approved receives the user's y or Enter at an approval menu.
	approved   chan struct{}
	rows, cols int
	// turns counts the prompts taken (Answers).
	turns int
}

// New returns an agent for o (defaults filled in).
func New(o Options) (*Agent, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	a := &Agent{o: o, rows: 24, cols: 80}
	a.screen = Screen{Model: o.Model, Effort: o.Effort, Cwd: o.Cwd}
	a.approved = make(chan struct{}, 1)
	a.screen.Transcript = banner(o)
	if o.PreviousTurn {
		a.screen.Transcript = append(a.screen.Transcript,
			"", "› Say hello", "", "• Hello! Ready for the next task.", "",
			"  Worked for 1s • "+time.Now().Format("15:04"))
	}
	return a, nil
}

func banner(o Options) []string {
	return []string{
		">_ Simulated Codex (handoff-fsm sim-agent, scenario " + string(o.Scenario) + ")",
		"",
		"  model:     " + o.Model + " " + o.Effort,
		"  directory: " + o.Cwd,
	}
}

// Screen returns a copy of what the agent shows now.
func (a *Agent) Screen() Screen {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.screen
	s.Transcript = append([]string(nil), s.Transcript...)
	return s
}

// Run drives the agent on the terminal tty (raw mode, restored on return)
// until the input ends, Ctrl-C or Ctrl-D on an empty composer, or ctx ends.
// In the crash scenario it returns ErrCrashed in the middle of the first
// turn.
func (a *Agent) Run(ctx context.Context, tty *os.File, out io.Writer) error {
	restore, err := RawMode(ctx, tty)
	if err != nil {
		return fmt.Errorf("the simulated agent needs a terminal (run it in a tmux pane): %w", err)
	}
	defer restore()
	a.out = out
	a.resize(ctx, tty)
	// Bracketed paste on: tmux's paste-buffer -p only brackets a paste for
	// an application that asked for it.
	fmt.Fprint(out, "\x1b[?2004h")
	defer fmt.Fprint(out, "\x1b[?2004l\r\n")

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	keys := readKeys(ctx, tty)
	winch := make(chan os.Signal, 1)
	if sigs := resizeSignals(); len(sigs) > 0 {
		signal.Notify(winch, sigs...)
		defer signal.Stop(winch)
	}
	tick := time.NewTicker(a.o.Redraw)
	defer tick.Stop()

	a.draw()
	var (
		queue     []string
		running   bool
		turnDone  = make(chan error, 1)
		lastPaste time.Time
	)
	start := func(prompt string) {
		running = true
		go func() { turnDone <- a.turn(ctx, prompt) }()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-winch:
			a.resize(ctx, tty)
			a.draw()
		case <-tick.C:
			if a.Screen().Busy {
				a.draw()
			}
		case err := <-turnDone:
			running = false
			if err != nil {
				return err
			}
			if len(queue) > 0 {
				next := queue[0]
				queue = queue[1:]
				start(next)
			}
		case k, ok := <-keys:
			if !ok {
				return nil
			}
			prompt, quit, err := a.key(k, &lastPaste)
			switch {
			case err != nil:
				return err
			case quit:
				return nil
			case prompt == "":
			case running:
				queue = append(queue, prompt)
			default:
				start(prompt)
			}
		}
	}
}

// readKeys reads tty's keys until ctx ends or tty does (the channel closes).
func readKeys(ctx context.Context, tty *os.File) <-chan Key {
	keys := make(chan Key)
	go func() {
		defer close(keys)
		kr := NewKeyReader(tty)
		for {
			k, err := kr.Next()
			if err != nil {
				return
			}
			select {
			case keys <- k:
			case <-ctx.Done():
				return
			}
		}
	}()
	return keys
}

// key takes a key typed at the agent: into the draft, or the draft sent
// (prompt, logged), or an approval; quit says the agent ends (Ctrl-C on
// an empty draft, EOF). lastPaste is when the last paste came: Enter
// within PasteBurst of it is a line break, as some CLIs read it.
func (a *Agent) key(k Key, lastPaste *time.Time) (prompt string, quit bool, err error) {
	if len(a.Screen().Menu) > 0 {
		// An approval menu takes y or Enter; other keys do nothing.
		if k.Kind == KeyEnter || k.Kind == KeyText && strings.EqualFold(k.Text, "y") {
			select {
			case a.approved <- struct{}{}:
			default:
			}
		}
		return "", false, nil
	}
	switch k.Kind {
	case KeyPaste, KeyText:
		if k.Kind == KeyPaste {
			*lastPaste = time.Now()
		}
		a.update(func(s *Screen) { s.Draft += k.Text })
	case KeyBackspace:
		a.update(func(s *Screen) {
			if _, n := utf8.DecodeLastRuneInString(s.Draft); n > 0 {
				s.Draft = s.Draft[:len(s.Draft)-n]
			}
		})
	case KeyEnter:
		if a.o.PasteBurst > 0 && time.Since(*lastPaste) < a.o.PasteBurst {
			a.update(func(s *Screen) { s.Draft += "\n" })
			return "", false, nil
		}
		prompt = strings.TrimRight(a.Screen().Draft, "\n")
		if strings.TrimSpace(prompt) == "" {
			return "", false, nil
		}
		a.update(func(s *Screen) { s.Draft = "" })
		if a.o.Scenario == ScenarioBounces {
			return prompt, false, nil // never taken: see bounce
		}
		return prompt, false, a.logPrompt(prompt)
	case KeyInterrupt:
		if a.Screen().Draft != "" {
			a.update(func(s *Screen) { s.Draft = "" })
			return "", false, nil
		}
		return "", true, nil
	case KeyEOF:
		return "", true, nil
	}
	return "", false, nil
}

func (a *Agent) resize(ctx context.Context, tty *os.File) {
	rows, cols, err := Size(ctx, tty)
	if err != nil {
		return
	}
	a.mu.Lock()
	a.rows, a.cols = rows, cols
	a.mu.Unlock()
}

// update changes the screen and redraws it.
func (a *Agent) update(f func(*Screen)) {
	a.mu.Lock()
	f(&a.screen)
	a.mu.Unlock()
	a.draw()
}

func (a *Agent) draw() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.out == nil {
		return
	}
	now := time.Now()
	fmt.Fprint(a.out, Frame(a.screen.Render(now, a.rows, a.cols), a.screen.Title(now)))
}

// turn answers one prompt: the startup race, work, the response file, the
// streamed reply, idle again.
func (a *Agent) turn(ctx context.Context, prompt string) error {
	began := time.Now()
	// The startup race: the previous turn's idle screen stays (the composer
	// was just cleared) while the agent "reads" the prompt.
	if err := fsm.Sleep(ctx, a.o.Startup); err != nil {
		return nil
	}
	if a.o.Scenario == ScenarioBounces {
		return a.bounce(ctx, prompt)
	}
	a.update(func(s *Screen) {
		s.Transcript = append(s.Transcript, "")
		s.Transcript = append(s.Transcript, quoteLines("› ", displayText(prompt), 4)...)
		s.Busy, s.Indicator, s.Since = true, "Working", time.Now()
	})
	if a.o.Scenario == ScenarioCrash {
		_ = fsm.Sleep(ctx, a.o.Work/2)
		return ErrCrashed
	}
	if err := a.work(ctx); err != nil {
		return nil
	}

	o := a.o
	if len(o.Answers) > 0 {
		o.Answer = o.Answers[min(a.turns, len(o.Answers)-1)]
	}
	a.turns++
	plan := Plan(o, prompt)
	if plan.Heredoc != "" && a.o.Scenario == ScenarioAsks {
		a.update(func(s *Screen) {
			s.Indicator = ""
			s.Menu = ApprovalMenu(plan.Heredoc)
		})
		select {
		case <-ctx.Done():
			return nil
		case <-a.approved:
		}
		a.update(func(s *Screen) { s.Menu, s.Indicator, s.Since = nil, "Working", time.Now() })
	}
	if plan.Heredoc != "" {
		result := "  └ (no output)"
		if err := WriteResponse(ctx, plan.Ticket, plan.File); err != nil {
			result = "  └ " + err.Error()
		}
		a.update(func(s *Screen) {
			s.Transcript = append(s.Transcript, "", "• Ran "+plan.Heredoc, result)
		})
	}

	// Streaming: no indicator, the screen looks idle, only the title spins.
	a.update(func(s *Screen) {
		s.Indicator = ""
		s.Transcript = append(s.Transcript, "", "• ")
	})
	if err := a.stream(ctx, plan.Reply); err != nil {
		return nil
	}
	a.update(func(s *Screen) {
		s.Busy = false
		s.Transcript = append(s.Transcript, "",
			fmt.Sprintf("  Worked for %ds • %s", int(time.Since(began).Seconds()), time.Now().Format("15:04")))
	})
	if a.o.IdleLog != "" {
		if f, err := os.OpenFile(a.o.IdleLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, time.Now().UnixNano())
			f.Close()
		}
	}
	return nil
}

// bounce is ScenarioBounces' turn: Working for Work, then idle with the
// prompt back in the composer and nothing in the transcript.
func (a *Agent) bounce(ctx context.Context, prompt string) error {
	a.update(func(s *Screen) { s.Busy, s.Indicator, s.Since = true, "Working", time.Now() })
	if err := fsm.Sleep(ctx, a.o.Work); err != nil {
		return nil
	}
	a.update(func(s *Screen) { s.Busy, s.Indicator, s.Draft = false, "", prompt })
	return nil
}

// work is the turn's work: Work (plus up to WorkJitter), then until the
// WorkUntil file exists. Its error is ctx's, when it ended first.
func (a *Agent) work(ctx context.Context) error {
	work := a.o.Work
	if a.o.WorkJitter > 0 {
		work += rand.N(a.o.WorkJitter)
	}
	if err := fsm.Sleep(ctx, work); err != nil {
		return err
	}
	for a.o.WorkUntil != "" {
		if _, err := os.Stat(a.o.WorkUntil); err == nil {
			break
		}
		if err := fsm.Sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// stream shows reply word by word over Stream, on the transcript's last
// line. Its error is ctx's, when it ended first.
func (a *Agent) stream(ctx context.Context, reply string) error {
	words := strings.Fields(reply)
	step := a.o.Stream / time.Duration(max(len(words), 1))
	for i := range words {
		if err := fsm.Sleep(ctx, step); err != nil {
			return err
		}
		a.update(func(s *Screen) {
			s.Transcript[len(s.Transcript)-1] = "• " + strings.Join(words[:i+1], " ")
		})
	}
	return nil
}

// ApprovalMenu is the menu Codex 0.169 shows before running command
// without approval: it waits for y or Enter.
func ApprovalMenu(command string) []string {
	return []string{"  Would you like to run the following command?", "",
		"  $ " + command, "",
		"› 1. Yes, proceed (y)",
		"  2. No, and tell Codex what to do differently (esc)", "",
		"  Press enter to confirm or esc to cancel"}
}

// displayText is the prompt as the transcript shows it: without leading
// blank lines.
// logPrompt appends prompt's user text to Options.PromptLog: one write
// per line, so agents sharing a file do not interleave. A log that cannot
// be written ends the agent: the test reading it would count wrong.
func (a *Agent) logPrompt(prompt string) error {
	if a.o.PromptLog == "" {
		return nil
	}
	line, err := json.Marshal(UserText(prompt))
	if err != nil {
		return err
	}
	f, err := os.OpenFile(a.o.PromptLog, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("prompt log: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("prompt log: %w", err)
	}
	return f.Close()
}

func displayText(prompt string) string {
	return strings.TrimLeft(prompt, "\n")
}

// TurnPlan is what the agent will do with a prompt: the reply it shows, and
// the response file it writes (Heredoc "" when it writes none): Heredoc is
// the command's first line as the transcript shows it, Ticket what the
// instruction asked for.
type TurnPlan struct {
	Reply   string
	Heredoc string
	Ticket  handoff.Ticket
	File    string
}

// Plan decides the agent's answer to prompt under o, without doing it.
func Plan(o Options, prompt string) TurnPlan {
	asked := UserText(prompt)
	first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(asked), "\n", 2)[0])
	if utf8.RuneCountInString(first) > 60 {
		first = string([]rune(first)[:60]) + "…"
	}
	ticket, err := Heredoc(prompt)
	switch {
	case o.Scenario == ScenarioNeverWrites,
		o.Scenario == ScenarioForgets && !strings.HasPrefix(strings.TrimSpace(prompt), "Reminder"):
		return TurnPlan{Reply: "Here is my answer, on screen only (I did not write the response file): " +
			"you asked " + quote(first) + "."}
	case err != nil:
		return TurnPlan{Reply: "Done: you asked " + quote(first) + " (no response file was requested)."}
	}
	file := "Simulated answer (scenario " + string(o.Scenario) + ") to: " + quote(first) +
		"\n\nThe simulated agent did the work and wrote this file with the heredoc from the RESPONSE FILE INSTRUCTION."
	if o.Echo {
		file = asked
	}
	if o.Answer != "" {
		file = o.Answer
	}
	return TurnPlan{
		Reply:   fmt.Sprintf("Done. I wrote my answer (%d bytes) to the response file.", len(file)+1),
		Heredoc: CommandLine(ticket),
		Ticket:  ticket,
		File:    file,
	}
}

func quote(s string) string { return "“" + s + "”" }
