// Package realqwen describes Qwen Code (a Gemini CLI fork that speaks the
// OpenAI Chat Completions API) to the real-CLI harness (internal/realcli):
// a fresh HOME whose ~/.qwen/settings.json turns off what would send
// requests of its own (managed auto-memory, follow-up suggestions),
// ripgrep (its bundled binary is not executable after an npm install),
// updates, telemetry and folder trust; the environment that points it at a
// fake Chat Completions API (OPENAI_BASE_URL, OPENAI_API_KEY,
// OPENAI_MODEL); and the screens that say it is ready and took a prompt.
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realqwen

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
	"github.com/handoff-fsm/handoff-fsm/qwen"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Options configure one Qwen Code session: Common (BaseURL is the fake
// Chat Completions API, OPENAI_BASE_URL; ReadyTimeout 120 s, since a
// loaded machine has seen more than 60 s of "Initializing...", and Settle
// 1 s by default) and what only Qwen Code has.
type Options struct {
	realcli.Common
	// Ask starts it in the default approval mode: it asks before it runs a
	// shell command. Otherwise --yolo.
	Ask bool
	// Approval, when set, is the approval mode instead: "yolo",
	// "auto-edit" or "default" (the footer's mode line differs).
	Approval string
	// Hooks maps a hook event (Stop, UserPromptSubmit, …) to a shell
	// command Qwen Code runs for it.
	Hooks map[string]string
}

// Env is Qwen Code's whole environment: nothing of the developer's own
// OPENAI_*/QWEN_* settings leaks in.
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "OPENAI_API_KEY="+realcli.OpenAIKey, "OPENAI_BASE_URL="+opts.BaseURL, "OPENAI_MODEL="+realcli.Model)
}

// Args are its command-line arguments: --yolo, or the approval mode named
// (its own default is "auto", which asks a model about each call).
func Args(opts Options) []string {
	if mode := realgemini.ApprovalMode(opts.Approval, opts.Ask); mode != "yolo" {
		return []string{"--approval-mode", mode}
	}
	return []string{"--yolo"}
}

// Settings is ~/.qwen/settings.json.
func Settings(opts Options) map[string]any {
	return realcli.WithHooks(map[string]any{
		"memory":   map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
		"ui":       map[string]any{"enableFollowupSuggestions": false},
		"tools":    map[string]any{"useRipgrep": false},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "disableAutoUpdate": true},
		"security": map[string]any{"folderTrust": map[string]any{"enabled": false}},
		"ide":      map[string]any{"hasSeenNudge": true},
	}, opts.Hooks)
}

// CLI describes Qwen Code to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "qwen", Package: qwen.Provider().CLI, Version: qwen.Version},
	Ready: Ready, Submitted: Submitted,
	EnterDelay: time.Second, ReadyTimeout: 120 * time.Second, Settle: time.Second,
	PasteLF: qwen.Provider().Composer.RawLineBreaks,
}

// Start writes the home, starts a private tmux server whose pane execs
// Qwen Code, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common, Env: Env(opts), Args: Args(opts),
		JSON: map[string]any{filepath.Join(".qwen", "settings.json"): Settings(opts)}})
}

// Placeholder is the text of Qwen Code's empty composer: Gemini CLI's,
// which the fork kept.
const Placeholder = realgemini.Placeholder

// Banner is in the box Qwen Code draws at the top once it has loaded.
const Banner = "Qwen Code (v"

// Ready reports a screen with the banner and the empty composer, and no
// "Initializing..." line.
func Ready(text, _ string) bool {
	plain := screen.Plain(text)
	return strings.Contains(plain, Placeholder) && strings.Contains(plain, Banner) && !strings.Contains(plain, "Initializing...")
}

// Submitted reports a screen whose composer is empty again or whose title
// spins: the prompt was taken.
func Submitted(text, title string) bool {
	return qwen.TitleSpinning(title) || strings.Contains(screen.Plain(text), Placeholder)
}
