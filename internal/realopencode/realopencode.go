// Package realopencode describes OpenCode (a native binary that speaks the
// OpenAI Chat Completions API through @ai-sdk/openai-compatible) to the
// real-CLI harness (internal/realcli): a fresh HOME whose
// ~/.config/opencode/opencode.json names one custom provider at the fake
// server, updates and sharing off, and a permission for bash (allow, or
// ask for the confirmation dialog); an environment without the models.dev
// fetch (it otherwise waits about 12 s for it to time out offline); and
// the screens that say it is ready and took a prompt.
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realopencode

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/opencode"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ShellTool is the name of OpenCode's shell tool (for
// fakemodel.ChatCompletions.ShellTool).
const ShellTool = "bash"

// Options configure one OpenCode session: Common (BaseURL is the fake
// Chat Completions API, ending in /v1; ReadyTimeout 90 s and Settle 1 s by
// default) and what only OpenCode has.
type Options struct {
	realcli.Common
	// Ask makes it ask before it runs a bash command. Otherwise bash is
	// allowed.
	Ask bool
	// Auto starts it with --auto: permissions that are not denied are
	// granted without asking (with Ask, bash is asked for and granted).
	Auto bool
}

// Env is OpenCode's whole environment: nothing of the developer's own
// settings leaks in.
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1")
}

// Args are OpenCode's command-line arguments for opts.
func Args(opts Options) []string {
	if opts.Auto {
		return []string{"--auto"}
	}
	return nil
}

// Config is ~/.config/opencode/opencode.json.
func Config(opts Options) map[string]any {
	bash := "allow"
	if opts.Ask {
		bash = "ask"
	}
	return map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       "fake/" + realcli.Model,
		"small_model": "fake/" + realcli.Model,
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Fake",
			"options": map[string]any{"baseURL": opts.BaseURL, "apiKey": realcli.OpenAIKey},
			"models":  map[string]any{realcli.Model: map[string]any{"name": realcli.Model}},
		}},
		"permission": map[string]any{"bash": bash, "edit": "allow"},
	}
}

// CLI describes OpenCode to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "opencode", Package: opencode.Provider().CLI, Version: opencode.Version},
	Ready: Ready, Submitted: Submitted,
	EnterDelay: 500 * time.Millisecond, ReadyTimeout: 90 * time.Second, Settle: time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// OpenCode, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common, Env: Env(opts), Args: Args(opts),
		JSON: map[string]any{filepath.Join(".config", "opencode", "opencode.json"): Config(opts)}})
}

// Placeholder starts the text of OpenCode's empty composer on its first
// screen ("Ask anything… "Fix a TODO in the codebase"").
const Placeholder = "Ask anything"

// Screen is what tells OpenCode's screen ready and a prompt taken, for
// OpenCode and for a fork that draws the same screen (Kilo Code): only
// the agent's name on the composer's agent line differs.
type Screen struct {
	// Agent is the default agent's name on the composer's agent line:
	// "Build" for OpenCode ("┃  Build · fake-model Fake"), "Code" for
	// Kilo Code ("┃  Code  · fake-model Fake").
	Agent string
}

// screenOf is OpenCode's own.
var screenOf = Screen{Agent: "Build"}

// Ready reports OpenCode's first screen (see Screen.Ready).
func Ready(text, title string) bool { return screenOf.Ready(text, title) }

// Submitted reports a prompt taken by OpenCode (see Screen.Submitted).
func Submitted(text, title string) bool { return screenOf.Submitted(text, title) }

// Ready reports the first screen: the empty composer with its placeholder
// and the agent line.
func (s Screen) Ready(text, _ string) bool {
	plain := screen.Plain(text)
	if !strings.Contains(plain, Placeholder) {
		return false
	}
	for _, l := range strings.Split(plain, "\n") {
		if s.agentLine(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

// agentLine reports the composer's agent line: "┃  Build · fake-model
// Fake", "┃  Build auto · …" with --auto, "┃  Code  · fake-model Fake".
func (s Screen) agentLine(t string) bool {
	in := strings.TrimSpace(strings.TrimPrefix(t, "┃"))
	return strings.HasPrefix(in, s.Agent) && strings.Contains(in, "· "+realcli.Model)
}

// Submitted reports a screen on which the prompt was taken: the hint line
// under the composer says "esc interrupt" (a turn runs), or the composer is
// empty again (a fast turn already ended). The history's footers cannot
// say it: an earlier turn left one.
func (s Screen) Submitted(text, _ string) bool {
	plain := screen.Plain(text)
	return strings.Contains(plain, "esc interrupt") || s.composerEmpty(plain)
}

// composerEmpty reports a composer ("┃" lines above its agent line)
// with nothing but the placeholder in it.
func (s Screen) composerEmpty(plain string) bool {
	lines := strings.Split(plain, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "┃") || !s.agentLine(t) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			t := strings.TrimSpace(lines[j])
			if !strings.HasPrefix(t, "┃") {
				return true
			}
			if in := strings.TrimSpace(strings.TrimPrefix(t, "┃")); in != "" && !strings.HasPrefix(in, Placeholder) {
				return false
			}
		}
		return true
	}
	return false
}
