// Package realclaude runs the real Anthropic Claude Code CLI in a private
// tmux server for end-to-end tests: a fresh HOME whose ~/.claude.json marks
// onboarding done and the work folder trusted, settings that let it run
// without a permission prompt (or with one, on request), the environment
// that points it at a fake model server (ANTHROPIC_BASE_URL with an auth
// token, no auto-updater, no nonessential traffic, few retries), a
// readiness wait, captures with the pane title, keys and pastes, and a
// cleanup that ends everything the session started.
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realclaude

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// Version is the pinned Claude Code version the tests and fixtures are for.
const Version = "2.1.330"

// BinEnv names the environment variable that points at the Claude Code
// binary.
const BinEnv = "HANDOFF_CLAUDE_BIN"

// SocketPrefix starts the name of every tmux server the harness starts.
const SocketPrefix = "hfclaude-"

// ErrNoBinary: the binary is not installed where the tests look.
var ErrNoBinary = realcli.ErrNoBinary

// pin is the pinned version the install script puts in the cache.
func pin() realcli.Pin { return realcli.Pin{Name: "claude", Version: Version, Env: BinEnv} }

// CacheDir is where the install script installs the pinned version:
// ${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/<name>-<Version>.
func CacheDir() string { return pin().CacheDir() }

// Binary finds the binary: $BinEnv if set, else the install script's link
// in CacheDir. The error wraps ErrNoBinary and says how to install it.
func Binary() (string, error) { return pin().Binary() }

// StripANSI removes CSI and OSC escape sequences (realcli.StripANSI).
func StripANSI(s string) string { return realcli.StripANSI(s) }

// Permission modes for Options.Permissions.
const (
	// Bypass runs every tool without asking (--dangerously-skip-permissions;
	// as root this needs IS_SANDBOX=1 and skipDangerousModePermissionPrompt).
	Bypass = "bypass"
	// Ask asks before each tool call that changes something
	// (--permission-mode default): the permission prompt.
	Ask = "ask"
)

// Options configure one Claude Code session.
type Options struct {
	Bin     string // the Claude Code binary (see Binary)
	Workdir string // Claude Code's cwd, trusted in ~/.claude.json
	Home    string // a fresh, empty HOME
	BaseURL string // the fake model server (ANTHROPIC_BASE_URL, no /v1)
	// Permissions is Bypass (default) or Ask.
	Permissions string
	// Untrusted leaves the work folder untrusted: Claude Code starts with
	// its "trust this folder?" dialog (Start then does not wait for the
	// composer, only for the dialog).
	Untrusted bool
	// MaxRetries is CLAUDE_CODE_MAX_RETRIES: how often a failed request is
	// retried (0: none; Claude Code's own default is 10, with minutes of
	// back-off).
	MaxRetries int
	// Hooks maps a hook event (Stop, StopFailure, PermissionRequest,
	// UserPromptSubmit, …) to a shell command Claude Code runs for it, with
	// the event's JSON on stdin.
	Hooks map[string]string
	// Width and Height of the pane; 120x40 by default.
	Width, Height int
	// ReadyTimeout bounds the wait for the composer; 45 s by default.
	ReadyTimeout time.Duration
	// Settle is waited after the composer first shows: Claude Code drops an
	// Enter that comes within about a second of it. 1.5 s by default.
	Settle time.Duration
}

func (o Options) withDefaults() Options {
	if o.Permissions == "" {
		o.Permissions = Bypass
	}
	if o.Width == 0 {
		o.Width = 120
	}
	if o.Height == 0 {
		o.Height = 40
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = 45 * time.Second
	}
	if o.Settle == 0 {
		o.Settle = 1500 * time.Millisecond
	}
	return o
}

// AuthToken is the token Claude Code sends the fake server (as a bearer
// token: ANTHROPIC_AUTH_TOKEN; ANTHROPIC_API_KEY would bring up a "use
// this API key?" dialog).
const AuthToken = "handoff-fake-token"

// Env returns the environment Claude Code runs with: nothing inherited but
// PATH, so the developer's own ANTHROPIC_* settings and ~/.claude never
// leak in.
func Env(opts Options) []string {
	opts = opts.withDefaults()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + opts.Home,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + opts.BaseURL,
		"ANTHROPIC_AUTH_TOKEN=" + AuthToken,
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_MAX_RETRIES=" + strconv.Itoa(opts.MaxRetries),
	}
	if os.Geteuid() == 0 {
		// As root, --dangerously-skip-permissions is refused outside a
		// sandbox.
		env = append(env, "IS_SANDBOX=1")
	}
	return env
}

// Args are Claude Code's command-line arguments for opts.
func Args(opts Options) []string {
	if opts.withDefaults().Permissions == Ask {
		return []string{"--permission-mode", "default"}
	}
	return []string{"--dangerously-skip-permissions"}
}

// ClaudeJSON is ~/.claude.json: onboarding done and, unless Untrusted, the
// work folder trusted.
func ClaudeJSON(opts Options) ([]byte, error) {
	cfg := map[string]any{"hasCompletedOnboarding": true}
	if !opts.Untrusted {
		cfg["projects"] = map[string]any{
			opts.Workdir: map[string]any{
				"hasTrustDialogAccepted":        true,
				"hasCompletedProjectOnboarding": true,
				"allowedTools":                  []string{},
			},
		}
	}
	return json.MarshalIndent(cfg, "", "  ")
}

// Settings is ~/.claude/settings.json: no "bypass permissions?" warning, and
// the hooks asked for. No permission mode is set here: one would bring up a
// "make it your default?" dialog.
func Settings(opts Options) ([]byte, error) {
	s := map[string]any{"skipDangerousModePermissionPrompt": true}
	if len(opts.Hooks) > 0 {
		hooks := map[string]any{}
		for event, command := range opts.Hooks {
			hooks[event] = []any{map[string]any{
				"hooks": []any{map[string]any{"type": "command", "command": command}},
			}}
		}
		s["hooks"] = hooks
	}
	return json.MarshalIndent(s, "", "  ")
}

// Session is Claude Code running in a private tmux server.
type Session struct {
	Socket string // tmux -L name of the private server
	Target string // the pane, for tmux -t
	Home   string
	// Started is when the Claude Code process was started; Ready when its
	// composer was first seen (or, Untrusted, the trust dialog).
	Started, Ready time.Time

	opts       Options
	panePID    int
	socketPath string
}

// Start writes the home, starts a private tmux server with Claude Code in
// its only pane, and waits until Claude Code is ready for a prompt (plus
// Settle). On error everything started is ended again.
func Start(ctx context.Context, opts Options) (*Session, error) {
	opts = opts.withDefaults()
	for name, v := range map[string]string{"Bin": opts.Bin, "Workdir": opts.Workdir, "Home": opts.Home, "BaseURL": opts.BaseURL} {
		if v == "" {
			return nil, fmt.Errorf("realclaude: Options.%s is required", name)
		}
	}
	if err := writeHome(opts); err != nil {
		return nil, err
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	s := &Session{
		Socket: fmt.Sprintf("%se2e-%d-%s", SocketPrefix, os.Getpid(), hex.EncodeToString(rnd[:])),
		Target: "claude:0.0",
		Home:   opts.Home,
		opts:   opts,
	}
	s.Started = time.Now()
	args := []string{"-f", "/dev/null", "new-session", "-d", "-s", "claude",
		"-x", strconv.Itoa(opts.Width), "-y", strconv.Itoa(opts.Height), "-c", opts.Workdir}
	env := Env(opts)
	for _, e := range env {
		args = append(args, "-e", e)
	}
	args = append(args, opts.Bin)
	args = append(args, Args(opts)...)
	// The tmux server itself starts with the same clean environment.
	if _, err := s.run(ctx, env, nil, args...); err != nil {
		return nil, err
	}
	out, err := s.tmux(ctx, "display", "-p", "-t", s.Target, "#{pane_pid} #{socket_path}")
	if err != nil {
		s.Close()
		return nil, err
	}
	pid, sock, _ := strings.Cut(strings.TrimSpace(out), " ")
	s.panePID, _ = strconv.Atoi(pid)
	s.socketPath = sock
	ready := Ready
	if opts.Untrusted {
		ready = func(text, _ string) bool { return strings.Contains(StripANSI(text), TrustQuestion) }
	}
	rctx, cancel := context.WithTimeout(ctx, opts.ReadyTimeout)
	defer cancel()
	if err := s.WaitFor(rctx, 100*time.Millisecond, ready); err != nil {
		text, _, _ := s.Capture(context.Background())
		s.Close()
		return nil, fmt.Errorf("realclaude: Claude Code not ready: %w; screen:\n%s", err, StripANSI(text))
	}
	s.Ready = time.Now()
	if !opts.Untrusted {
		if err := realcli.Pause(ctx, opts.Settle); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// TrustQuestion is a line of Claude Code's "trust this folder?" dialog.
const TrustQuestion = "Is this a project you created or one you trust?"

func writeHome(opts Options) error {
	if err := os.MkdirAll(filepath.Join(opts.Home, ".claude"), 0o700); err != nil {
		return fmt.Errorf("realclaude: HOME: %w", err)
	}
	cj, err := ClaudeJSON(opts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(opts.Home, ".claude.json"), cj, 0o600); err != nil {
		return fmt.Errorf("realclaude: .claude.json: %w", err)
	}
	st, err := Settings(opts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(opts.Home, ".claude", "settings.json"), st, 0o600); err != nil {
		return fmt.Errorf("realclaude: settings.json: %w", err)
	}
	return nil
}

// Ready reports a screen with Claude Code's composer: a "❯" line between
// two horizontal rules, and the permission-mode footer below.
func Ready(text, _ string) bool {
	ls := strings.Split(StripANSI(text), "\n")
	for i := 1; i+2 < len(ls); i++ {
		if strings.HasPrefix(ls[i], "❯") && isRule(ls[i-1]) && isRule(ls[i+1]) {
			return true
		}
	}
	return false
}

func isRule(l string) bool {
	l = strings.TrimSpace(l)
	return len(l) >= 3*10 && strings.Trim(l, "─") == ""
}

// PanePID is the pid of the Claude Code process in the pane.
func (s *Session) PanePID() int { return s.panePID }

// Options returns the options the session was started with (defaults
// filled in).
func (s *Session) Options() Options { return s.opts }

// tmux runs one tmux command against the private server, with a timeout.
func (s *Session) tmux(ctx context.Context, args ...string) (string, error) {
	return s.run(ctx, nil, nil, args...)
}

func (s *Session) run(ctx context.Context, env []string, stdin *strings.Reader, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", s.Socket}, args...)...)
	if env != nil {
		cmd.Env = env
	}
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("realclaude: tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
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

// Keys sends tmux key names (Enter, Escape, 1 …) to the pane.
func (s *Session) Keys(ctx context.Context, keys ...string) error {
	_, err := s.tmux(ctx, append([]string{"send-keys", "-t", s.Target}, keys...)...)
	return err
}

// Paste puts text into the composer as one bracketed paste, without Enter.
func (s *Session) Paste(ctx context.Context, text string) error {
	_, err := s.run(ctx, nil, strings.NewReader(text), "load-buffer", "-b", "handoff-e2e", "-", ";",
		"paste-buffer", "-p", "-d", "-b", "handoff-e2e", "-t", s.Target)
	return err
}

// Submit pastes text and presses Enter after a pause, then checks that the
// prompt left the composer (the composer is empty again, or the footer
// offers "esc to interrupt") and presses Enter again if not, up to four
// times: Claude Code drops an Enter that comes too soon after its start.
func (s *Session) Submit(ctx context.Context, text string) error {
	if err := s.Paste(ctx, text); err != nil {
		return err
	}
	for attempt := 0; attempt < 4; attempt++ {
		if err := realcli.Pause(ctx, 300*time.Millisecond); err != nil {
			return err
		}
		if err := s.Keys(ctx, "Enter"); err != nil {
			return err
		}
		vctx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		err := s.WaitFor(vctx, 50*time.Millisecond, Submitted)
		cancel()
		if err == nil {
			return nil
		}
	}
	text, title, _ := s.Capture(ctx)
	return fmt.Errorf("realclaude: the prompt was not submitted after four Enters; title %q, screen:\n%s", title, StripANSI(text))
}

// Submitted reports a screen whose composer is empty (or shows a
// placeholder), or whose footer offers to interrupt: the prompt was taken.
func Submitted(text, _ string) bool {
	plain := StripANSI(text)
	if strings.Contains(plain, "esc to interrupt") {
		return true
	}
	c, ok := Composer(plain)
	// After a failed request the empty composer shows "Resend your message
	// to try again" or "Once fixed, resend your message".
	return ok && (c == "" || strings.Contains(strings.ToLower(c), "resend your message"))
}

// Composer returns the text of the composer (the "❯" line between the two
// rules at the bottom) of a plain screen, and whether there is one.
func Composer(plain string) (string, bool) {
	ls := strings.Split(strings.TrimRight(plain, "\n"), "\n")
	for i := len(ls) - 2; i >= 1; i-- {
		if isRule(ls[i-1]) && strings.HasPrefix(ls[i], "❯") {
			return strings.TrimSpace(strings.TrimPrefix(ls[i], "❯")), true
		}
	}
	return "", false
}

// Close ends everything the session started: the tmux server (and with it
// Claude Code), then Claude Code and every process it started (tool shells)
// should they survive the hang-up. It is safe to call more than once; it
// reports what it could not end.
func (s *Session) Close() error {
	var errs []error
	ctx := context.Background()
	var tree []int
	if s.panePID > 0 {
		tree = append(descendants(s.panePID), s.panePID)
	}
	_, _ = s.tmux(ctx, "kill-server") // "no server running" is fine
	for _, pid := range tree {
		if err := endProcess(pid); err != nil {
			errs = append(errs, fmt.Errorf("pid %d: %w", pid, err))
		}
	}
	// tmux does not always unlink its socket when killed; the name is ours.
	if s.socketPath != "" {
		if fi, err := os.Lstat(s.socketPath); err == nil && fi.Mode()&os.ModeSocket != 0 {
			if _, err := s.tmux(ctx, "list-sessions"); err != nil {
				_ = os.Remove(s.socketPath)
			}
		}
	}
	return errors.Join(errs...)
}
