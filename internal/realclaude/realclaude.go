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
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// Version is the pinned Claude Code version the tests and fixtures are for.
const Version = claude.Version

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
	// Auto is Claude Code's own default, no permission flag: "auto mode",
	// where a server-side safety check decides about tool calls.
	Auto = "auto"
	// AcceptEdits (--permission-mode acceptEdits) edits files without
	// asking and asks before commands.
	AcceptEdits = "acceptEdits"
)

// Options configure one Claude Code session.
type Options struct {
	Bin     string // the Claude Code binary (see Binary)
	Workdir string // Claude Code's cwd, trusted in ~/.claude.json
	Home    string // a fresh, empty HOME
	BaseURL string // the fake model server (ANTHROPIC_BASE_URL, no /v1)
	// Permissions is Bypass (default), Ask, AcceptEdits or Auto.
	Permissions string
	// Terminal is the terminal it is told it runs in; the zero value is
	// TERM=xterm-256color without COLORTERM.
	Terminal realcli.Terminal
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
	// ExtraArgs follow the permission arguments (e.g. --mcp-config FILE).
	ExtraArgs []string
	// ExtraEnv is added to Env's environment (KEY=value), and so reaches
	// the processes Claude Code starts (its MCP servers).
	ExtraEnv []string
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
	env = realcli.WithTerminal(env, opts.Terminal)
	if os.Geteuid() == 0 {
		// As root, --dangerously-skip-permissions is refused outside a
		// sandbox.
		env = append(env, "IS_SANDBOX=1")
	}
	return env
}

// Args are Claude Code's command-line arguments for opts.
func Args(opts Options) []string {
	switch opts.withDefaults().Permissions {
	case Ask:
		return []string{"--permission-mode", "default"}
	case AcceptEdits:
		return []string{"--permission-mode", AcceptEdits}
	case Auto:
		return nil
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
	if hooks := realcli.CommandHooks(opts.Hooks); hooks != nil {
		s["hooks"] = hooks
	}
	return json.MarshalIndent(s, "", "  ")
}

// Session is Claude Code running in a private tmux server.
type Session = realcli.Session

// CLI describes Claude Code to the harness.
var CLI = realcli.CLI{
	Pin:       pin(),
	Package:   "@anthropic-ai/claude-code",
	Session:   "claude",
	Ready:     Ready,
	Submitted: Submitted,
	// Claude Code drops an Enter that comes too soon after its start.
	Enters: 4,
}

// Start writes the home, starts a private tmux server with Claude Code in
// its only pane, and waits until Claude Code is ready for a prompt (plus
// Settle; Untrusted: until its trust dialog shows). On error everything
// started is ended again.
func Start(ctx context.Context, opts Options) (*Session, error) {
	opts = opts.withDefaults()
	if opts.BaseURL == "" {
		return nil, errors.New("realclaude: Options.BaseURL is required")
	}
	cj, err := ClaudeJSON(opts)
	if err != nil {
		return nil, err
	}
	st, err := Settings(opts)
	if err != nil {
		return nil, err
	}
	l := realcli.Launch{
		Bin: opts.Bin, Workdir: opts.Workdir, Home: opts.Home,
		Files: map[string][]byte{".claude.json": cj, filepath.Join(".claude", "settings.json"): st},
		Env:   append(Env(opts), opts.ExtraEnv...), Args: append(Args(opts), opts.ExtraArgs...),
		Width: opts.Width, Height: opts.Height,
		SocketPrefix: SocketPrefix + "e2e",
		ReadyTimeout: opts.ReadyTimeout,
		Settle:       opts.Settle,
	}
	if opts.Untrusted {
		l.Ready = func(text, _ string) bool { return strings.Contains(StripANSI(text), TrustQuestion) }
		l.Settle = 0
	}
	return realcli.Start(ctx, CLI, l)
}

// TrustQuestion is a line of Claude Code's "trust this folder?" dialog.
const TrustQuestion = "Is this a project you created or one you trust?"

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
