// Package realgemini describes Google's Gemini CLI to the real-CLI harness
// (internal/realcli): a fresh HOME whose ~/.gemini/settings.json selects
// API-key auth, turns folder trust, update checks, telemetry and the IDE
// nudge off and registers the hooks asked for; the environment that points
// it at a fake Gemini API (GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL); and
// the screens that say it is ready and took a prompt.
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realgemini

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// APIKey is the key Gemini CLI sends the fake server.
const APIKey = "handoff-fake-gemini-key"

// Options configure one Gemini CLI session: Common (BaseURL is the fake
// Gemini API, GOOGLE_GEMINI_BASE_URL; ReadyTimeout 60 s, Settle 1 s by
// default) and what only Gemini CLI has.
type Options struct {
	realcli.Common
	// Ask leaves the default approval mode: Gemini CLI asks before it runs
	// a shell command (its confirmation dialog). Otherwise --yolo.
	Ask bool
	// Approval, when set, is the approval mode instead: "yolo",
	// "auto_edit" or "default" (the mode line above the composer differs).
	Approval string
	// Hooks maps a hook event (AfterAgent, BeforeAgent, Notification, …)
	// to a shell command Gemini CLI runs for it, with the event's JSON on
	// stdin.
	Hooks map[string]string
	// Model, when set, is passed as --model.
	Model string
}

// Env is Gemini CLI's whole environment: nothing of the developer's own
// GEMINI_*/GOOGLE_* settings leaks in.
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "GEMINI_API_KEY="+APIKey, "GOOGLE_GEMINI_BASE_URL="+opts.BaseURL)
}

// Args are its command-line arguments.
func Args(opts Options) []string {
	var args []string
	switch mode := ApprovalMode(opts.Approval, opts.Ask); mode {
	case "yolo":
		args = append(args, "--yolo")
	case "default":
	default:
		args = append(args, "--approval-mode", mode)
	}
	if opts.Model != "" {
		args = append(args, "--model", opts.Model)
	}
	return args
}

// ApprovalMode is the --approval-mode a Gemini CLI (or a fork: Qwen Code)
// starts in: approval when set, else "default" (it asks) with ask, else
// "yolo".
func ApprovalMode(approval string, ask bool) string {
	switch {
	case approval != "":
		return approval
	case ask:
		return "default"
	}
	return "yolo"
}

// Settings is ~/.gemini/settings.json.
func Settings(opts Options) map[string]any {
	return realcli.WithHooks(map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false},
		},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"ide":       map[string]any{"enabled": false, "hasSeenNudge": true},
	}, opts.Hooks)
}

// CLI describes Gemini CLI to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "gemini", Package: gemini.Provider().CLI, Version: gemini.Version},
	Ready: Ready, Submitted: Submitted,
	// An Enter within about half a second of a paste is taken as part of
	// it (a new line in the composer).
	EnterDelay: gemini.Provider().EnterDelay, ReadyTimeout: 60 * time.Second, Settle: time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// Gemini CLI, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common, Env: Env(opts), Args: Args(opts),
		JSON: map[string]any{filepath.Join(".gemini", "settings.json"): Settings(opts)}})
}

// Placeholder is the text of Gemini CLI's empty composer.
const Placeholder = "Type your message or @path/to/file"

// Banner is a line of the logo block Gemini CLI draws once it has loaded:
// before it, a prompt is queued ("Initializing... Prompts will be queued.")
// and keys are read late.
const Banner = "Gemini CLI v"

// Ready reports a screen with the banner and the empty composer.
func Ready(text, _ string) bool {
	plain := realcli.StripANSI(text)
	return strings.Contains(plain, Placeholder) && strings.Contains(plain, Banner)
}

// Submitted reports a screen whose composer is empty again or whose title
// says it works: the prompt was taken.
func Submitted(text, title string) bool {
	return strings.HasPrefix(title, "✦") || strings.Contains(realcli.StripANSI(text), Placeholder)
}
