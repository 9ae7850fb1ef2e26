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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

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

// Options configure one Claude Code session: Common (Workdir is trusted
// in ~/.claude.json, BaseURL is the fake model server without /v1, the
// zero Terminal is TERM=xterm-256color without COLORTERM; ReadyTimeout
// 45 s and Settle 1.5 s by default) and what only Claude Code has.
type Options struct {
	realcli.Common
	// Permissions is Bypass (default), Ask, AcceptEdits or Auto.
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
	// ExtraArgs follow the permission arguments (e.g. --mcp-config FILE).
	ExtraArgs []string
	// ExtraEnv is added to Env's environment (KEY=value), and so reaches
	// the processes Claude Code starts (its MCP servers).
	ExtraEnv []string
}

// AuthToken is the token Claude Code sends the fake server (as a bearer
// token: ANTHROPIC_AUTH_TOKEN; ANTHROPIC_API_KEY would bring up a "use
// this API key?" dialog).
const AuthToken = "handoff-fake-token"

// Env returns the environment Claude Code runs with: nothing inherited but
// PATH, so the developer's own ANTHROPIC_* settings and ~/.claude never
// leak in.
func Env(opts Options) []string {
	env := CLI.Env(opts.Common,
		"ANTHROPIC_BASE_URL="+opts.BaseURL,
		"ANTHROPIC_AUTH_TOKEN="+AuthToken,
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_MAX_RETRIES="+strconv.Itoa(opts.MaxRetries))
	if os.Geteuid() == 0 {
		// As root, --dangerously-skip-permissions is refused outside a
		// sandbox.
		env = append(env, "IS_SANDBOX=1")
	}
	return env
}

// Args are Claude Code's command-line arguments for opts.
func Args(opts Options) []string {
	switch opts.Permissions {
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
func ClaudeJSON(opts Options) map[string]any {
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
	return cfg
}

// Settings is ~/.claude/settings.json: no "bypass permissions?" warning, and
// the hooks asked for. No permission mode is set here: one would bring up a
// "make it your default?" dialog.
func Settings(opts Options) map[string]any {
	return realcli.WithHooks(map[string]any{"skipDangerousModePermissionPrompt": true}, opts.Hooks)
}

// CLI describes Claude Code to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "claude", Package: claude.Provider().CLI, Version: claude.Version},
	Ready: Ready, Submitted: Submitted,
	// Claude Code drops an Enter that comes within about a second of its
	// first composer (and Submit's 4 Enters one that comes too soon).
	ReadyTimeout: 45 * time.Second, Settle: 1500 * time.Millisecond,
	Terminal: realcli.Terminal{Term: "xterm-256color"},
}

// Start writes the home, starts a private tmux server with Claude Code in
// its only pane, and waits until Claude Code is ready for a prompt (plus
// Settle; Untrusted: until its trust dialog shows). On error everything
// started is ended again.
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	l := realcli.Launch{Common: opts.Common,
		JSON: map[string]any{".claude.json": ClaudeJSON(opts), filepath.Join(".claude", "settings.json"): Settings(opts)},
		Env:  append(Env(opts), opts.ExtraEnv...), Args: append(Args(opts), opts.ExtraArgs...),
	}
	if opts.Untrusted {
		l.Ready = func(text, _ string) bool { return strings.Contains(realcli.StripANSI(text), TrustQuestion) }
		l.Settle = -1
	}
	return realcli.Start(ctx, CLI, l)
}

// TrustQuestion is a line of Claude Code's "trust this folder?" dialog.
const TrustQuestion = "Is this a project you created or one you trust?"

// Ready reports a screen with Claude Code's composer: a "❯" line between
// two horizontal rules, and the permission-mode footer below.
func Ready(text, _ string) bool {
	ls := strings.Split(realcli.StripANSI(text), "\n")
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
	plain := realcli.StripANSI(text)
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
