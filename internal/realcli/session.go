package realcli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/proctable"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// CLI describes one agent CLI to the harness: what a harness of its own
// would otherwise hard-code. Each of realcodex, realclaude, realgemini,
// realqwen, realopencode and realpi holds one and turns its options into a
// Launch; a new CLI adds such a descriptor, not a harness.
type CLI struct {
	Pin
	// Ready reports a screen on which the CLI takes a prompt.
	Ready func(text, title string) bool
	// Submitted reports a screen on which a submitted prompt was taken.
	Submitted func(text, title string) bool
	// Enters is how many times Submit presses Enter before it gives up
	// (CLIs drop an Enter that comes too soon after a start or a paste);
	// 4 by default.
	Enters int
	// EnterDelay is how long Submit waits between the paste showing and
	// Enter; 300 ms by default.
	EnterDelay time.Duration
	// ReadyTimeout is Common.ReadyTimeout's default for this CLI (the Node
	// CLIs take longer to draw their first prompt on a loaded machine);
	// 45 s when zero.
	ReadyTimeout time.Duration
	// Settle is Common.Settle's default for this CLI.
	Settle time.Duration
	// Terminal is what a zero Common.Terminal means for this CLI (Env);
	// DefaultTerminal when zero.
	Terminal Terminal
	// PasteLF: Paste keeps the text's line breaks as LF (tmux
	// paste-buffer -r), as the tmux driver does for a composer that asks
	// for it (handoff.LineBreakKeeper: Cline).
	PasteLF bool
	// Grace is the idle grace (also the startup timeout) a dispatch to
	// this CLI needs on a loaded machine: how long it may look idle after
	// it took a prompt before it shows work. DispatchGrace is 8 s when
	// zero.
	Grace time.Duration
}

// DispatchGrace is c.Grace, or the 8 s the tests give a CLI that shows
// work at once.
func (c CLI) DispatchGrace() time.Duration {
	if c.Grace > 0 {
		return c.Grace
	}
	return 8 * time.Second
}

// Common is what every CLI's session is told, whichever CLI it is: where
// it runs, the fake model it talks to, the terminal and the pane. Each
// descriptor's Options embed it.
type Common struct {
	Bin     string // the CLI's binary (Pin.Binary)
	Workdir string // its cwd
	Home    string // a fresh, empty folder for its configuration (HOME or the CLI's own variable)
	BaseURL string // the fake model server it is pointed at
	// Terminal is the terminal it is told it runs in; the zero value is
	// the CLI's own default (CLI.Terminal).
	Terminal Terminal
	// Width and Height of the pane; 120x40 by default.
	Width, Height int
	// ReadyTimeout bounds the wait for Ready; CLI.ReadyTimeout by default.
	ReadyTimeout time.Duration
	// Settle is waited after Ready (some CLIs drop an Enter that comes
	// right after they first draw their prompt); CLI.Settle by default,
	// none when negative.
	Settle time.Duration
}

// Env is the whole environment of a CLI that inherits nothing: PATH, HOME
// (c.Home), a UTF-8 locale, vars, and c's terminal (CLI.Terminal when
// zero). Nothing of the developer's own keys or settings leaks in.
func (cli CLI) Env(c Common, vars ...string) []string {
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.Home, "LANG=C.UTF-8"}, vars...)
	t := c.Terminal
	if t == (Terminal{}) {
		t = cli.Terminal
	}
	return append(env, t.Env()...)
}

// Launch is one session of a CLI: where it runs, with what.
type Launch struct {
	Common
	// Files are written before the start, relative to Home; JSON too, each
	// value as an indented JSON document (the CLIs' settings files).
	Files map[string][]byte
	JSON  map[string]any
	// Env is the CLI's environment (CLI.Env). With Inherit it is added to
	// this process's; without it, it is all the CLI gets.
	Env     []string
	Inherit bool
	// Unset names variables an inherited environment loses (env -u).
	Unset []string
	// Args follow the binary.
	Args []string
	// SocketPrefix starts the private tmux server's socket name;
	// "hf<Name>-e2e" by default.
	SocketPrefix string
	// Ready, when set, replaces CLI.Ready (a narrow pane, a start-up
	// dialog).
	Ready func(text, title string) bool
	// AfterClose ends what the CLI may have started outside its pane
	// (Codex's app-server daemon) once the session is closed.
	AfterClose func() []error
}

// Session is one CLI running alone in a private tmux server.
type Session struct {
	Socket string // tmux -L name of the private server
	Target string // the pane, for tmux -t
	Home   string
	// Started is when the process was started; Ready when Ready first
	// held.
	Started, Ready time.Time

	cli    CLI
	launch Launch
	priv   *tmuxdriver.Private
}

// Start checks that l says where (Bin, Workdir, Home, BaseURL), writes the
// home files, starts a private tmux server whose only pane execs the CLI
// (so the pane's process is the CLI itself), and waits until it is ready
// for a prompt (plus Settle). On error everything started is ended again.
func Start(ctx context.Context, cli CLI, l Launch) (*Session, error) {
	for name, v := range map[string]string{"Bin": l.Bin, "Workdir": l.Workdir, "Home": l.Home, "BaseURL": l.BaseURL} {
		if v == "" {
			return nil, fmt.Errorf("real %s: Options.%s is required", cli.Name, name)
		}
	}
	if l.Width == 0 {
		l.Width = 120
	}
	if l.Height == 0 {
		l.Height = 40
	}
	if l.ReadyTimeout == 0 {
		l.ReadyTimeout = cmp.Or(cli.ReadyTimeout, 45*time.Second)
	}
	if l.Settle == 0 {
		l.Settle = cli.Settle
	}
	if l.SocketPrefix == "" {
		l.SocketPrefix = "hf" + cli.Name + "-e2e"
	}
	if err := writeHome(l); err != nil {
		return nil, fmt.Errorf("real %s: %w", cli.Name, err)
	}
	command := "exec env"
	if !l.Inherit {
		command += " -i"
	}
	for _, u := range l.Unset {
		command += " -u " + shellQuote(u)
	}
	// The CLI's temporary files go into its home, removed with it: Gemini
	// CLI writes gemini-client-error-*.json into the temporary folder on
	// every failed request, and a check must leave nothing behind. First,
	// so that a launch's own TMPDIR wins.
	command += " " + shellQuote("TMPDIR="+TempDir(l.Home))
	for _, e := range l.Env {
		command += " " + shellQuote(e)
	}
	command += " " + shellQuote(l.Bin)
	for _, a := range l.Args {
		command += " " + shellQuote(a)
	}
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{
		Prefix: strings.TrimSuffix(l.SocketPrefix, "-"), Session: cli.Name,
		Width: l.Width, Height: l.Height, Dir: l.Workdir, Command: command})
	if err != nil {
		return nil, err
	}
	s := &Session{Socket: priv.Socket, Target: cli.Name + ":0.0", Home: l.Home, cli: cli, launch: l, priv: priv}
	s.Started = time.Now()
	ready := cli.Ready
	if l.Ready != nil {
		ready = l.Ready
	}
	rctx, cancel := context.WithTimeout(ctx, l.ReadyTimeout)
	defer cancel()
	if err := s.WaitFor(rctx, 100*time.Millisecond, ready); err != nil {
		text, title, _ := s.CapturePlain(context.Background())
		s.Close()
		return nil, fmt.Errorf("real %s: not ready: %w; title %q, screen:\n%s", cli.Name, err, title, text)
	}
	s.Ready = time.Now()
	if err := Pause(ctx, l.Settle); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// TempDir is the temporary folder (TMPDIR) of a CLI whose home is home:
// inside it, so that whoever removes the home removes what the CLI left
// there.
func TempDir(home string) string { return filepath.Join(home, ".tmp") }

// writeHome makes the CLI's home folder, its temporary folder (TempDir)
// and the launch's files in it (Files as given, JSON marshalled).
func writeHome(l Launch) error {
	if err := os.MkdirAll(TempDir(l.Home), 0o700); err != nil {
		return fmt.Errorf("home: %w", err)
	}
	files := map[string][]byte{}
	maps.Copy(files, l.Files)
	for rel, v := range l.JSON {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		files[rel] = b
	}
	for rel, b := range files {
		path := filepath.Join(l.Home, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// PanePID is the pid of the CLI's process in the pane.
func (s *Session) PanePID() int { return s.priv.PanePID }

// Server is the private tmux server.
func (s *Session) Server() tmuxdriver.Server { return s.priv.Server }

func (s *Session) tmux(ctx context.Context, args ...string) (string, error) {
	return s.priv.Run(ctx, nil, args...)
}

// Capture returns the pane's text (colour escapes kept, wrapped lines
// joined, 200 lines of history) and its title, from one tmux call.
func (s *Session) Capture(ctx context.Context) (text, title string, err error) {
	return s.capture(ctx, true)
}

// CapturePlain is Capture without colour escapes.
func (s *Session) CapturePlain(ctx context.Context) (text, title string, err error) {
	return s.capture(ctx, false)
}

func (s *Session) capture(ctx context.Context, colour bool) (text, title string, err error) {
	args := []string{"display", "-p", "-t", s.Target, "#{pane_title}", ";", "capture-pane", "-p", "-J", "-S", "-200", "-t", s.Target}
	if colour {
		args = append(args, "-e")
	}
	out, err := s.tmux(ctx, args...)
	if err != nil {
		return "", "", err
	}
	title, text, _ = strings.Cut(out, "\n")
	return text, title, nil
}

// WaitFor polls the pane every poll until cond holds, or ctx ends.
func (s *Session) WaitFor(ctx context.Context, poll time.Duration, cond func(text, title string) bool) error {
	for {
		text, title, err := s.Capture(ctx)
		if err == nil && cond(text, title) {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("%w (last capture error: %v)", ctx.Err(), err)
			}
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// Keys sends tmux key names (Enter, Escape, y, 1 …) to the pane.
func (s *Session) Keys(ctx context.Context, keys ...string) error {
	_, err := s.tmux(ctx, append([]string{"send-keys", "-t", s.Target}, keys...)...)
	return err
}

// Paste puts text into the composer as one bracketed paste, without Enter.
func (s *Session) Paste(ctx context.Context, text string) error {
	args := []string{"load-buffer", "-b", "handoff-e2e", "-", ";", "paste-buffer", "-p", "-d", "-b", "handoff-e2e", "-t", s.Target}
	if s.cli.PasteLF {
		args = append(args, "-r")
	}
	_, err := s.priv.Run(ctx, strings.NewReader(text), args...)
	return err
}

// Submit pastes text, waits until the paste shows (the screen no longer
// looks submitted), presses Enter after CLI.EnterDelay, then checks that
// the prompt was taken (CLI.Submitted) and presses Enter again if not, up
// to CLI.Enters times.
func (s *Session) Submit(ctx context.Context, text string) error {
	if err := s.Paste(ctx, text); err != nil {
		return err
	}
	// On a loaded machine a CLI can draw the paste a second or more later:
	// until then its screen still looks like a taken prompt.
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_ = s.WaitFor(pctx, 50*time.Millisecond, func(text, title string) bool { return !s.cli.Submitted(text, title) })
	cancel()
	delay := s.cli.EnterDelay
	if delay == 0 {
		delay = 300 * time.Millisecond
	}
	enters := cmp.Or(s.cli.Enters, 4)
	for attempt := 0; attempt < enters; attempt++ {
		if err := Pause(ctx, delay); err != nil {
			return err
		}
		if err := s.Keys(ctx, "Enter"); err != nil {
			return err
		}
		vctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		err := s.WaitFor(vctx, 50*time.Millisecond, s.cli.Submitted)
		cancel()
		if err == nil {
			return nil
		}
	}
	text, title, _ := s.CapturePlain(ctx)
	return fmt.Errorf("real %s: the prompt was not submitted after %d Enters; title %q, screen:\n%s", s.cli.Name, enters, title, text)
}

// Close ends everything the session started: the pane's processes (the
// CLI and whatever it started, also when it ignores the hang-up), the tmux
// server, what the CLI detached from its tree into the work folder or home
// (droid runs each shell command under a supervisor of its own, which
// lingers up to two seconds after the CLI), and what Launch.AfterClose
// ends. It is safe to call more than once; it reports what it could not
// end.
func (s *Session) Close() error {
	err := s.priv.Close(context.Background())
	if left := proctable.End(proctable.Detached(s.launch.Workdir, s.launch.Home), nil, 2*time.Second); len(left) > 0 {
		err = errors.Join(err, fmt.Errorf("real %s: processes %v it detached still run after SIGKILL", s.cli.Name, left))
	}
	if s.launch.AfterClose != nil {
		err = errors.Join(append([]error{err}, s.launch.AfterClose()...)...)
	}
	return err
}

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
