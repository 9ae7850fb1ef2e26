// Package realcontinue describes Continue's CLI (@continuedev/cli, cn) to
// the real-CLI harness (internal/realcli): a fresh HOME holding a
// config.yaml of one model (provider openai at the fake Chat Completions
// API, with tool use), given with --config, so it needs no account and
// asks the network for nothing it waits on; --auto (all tools allowed)
// unless it is to ask before each command; and the screens that say it is
// ready and took a prompt.
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realcontinue

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	cont "github.com/handoff-fsm/handoff-fsm/continue"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ShellTool is the name of Continue's shell tool.
const ShellTool = "Bash"

// Options configure one Continue session: Common (BaseURL is the fake
// Chat Completions API, ending in /v1) and what only Continue has.
type Options struct {
	realcli.Common
	// Ask starts it in its default mode, which asks before each command
	// ("Would you like to continue?"; Tab approves); otherwise --auto.
	Ask bool
}

// ConfigPath is config.yaml's path relative to HOME (Continue's own
// folder, though it is read through --config).
var ConfigPath = filepath.Join(".continue", "config.yaml")

// OnboardedPath is, relative to HOME, the mark Continue leaves after its
// first run's onboarding: without it and without --config, it asks for an
// Anthropic API key before anything else.
var OnboardedPath = filepath.Join(".continue", ".onboarding_complete")

// Env is Continue's whole environment: nothing of the developer's own
// settings leaks in, no telemetry, and it does not update itself.
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "CONTINUE_CLI_ENABLE_TELEMETRY=0", "CONTINUE_METRICS_ENABLED=0", "CONTINUE_CLI_AUTO_UPDATED=1")
}

// Config is config.yaml: one model, the fake one, in every role a turn
// uses, with tool use (without it Continue offers no tools).
func Config(opts Options) []byte {
	return []byte(fmt.Sprintf(`name: fake
version: 1.0.0
schema: v1
models:
  - name: fake
    provider: openai
    model: %s
    apiKey: %s
    apiBase: %s
    roles: [chat, edit, apply]
    capabilities: [tool_use]
`, realcli.Model, realcli.OpenAIKey, opts.BaseURL))
}

// Args are its arguments: the config, and --auto unless it is to ask.
func Args(opts Options) []string {
	args := []string{"--config", filepath.Join(opts.Home, ConfigPath)}
	if !opts.Ask {
		args = append(args, "--auto")
	}
	return args
}

// CLI describes Continue to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "continue", Package: cont.Provider().CLI, Version: cont.Version},
	Ready: Ready, Submitted: Submitted,
	ReadyTimeout: 90 * time.Second, Settle: time.Second,
}

// Launch is the harness's Launch of opts.
func Launch(opts Options) realcli.Launch {
	return realcli.Launch{Common: opts.Common, Env: Env(opts), Files: map[string][]byte{ConfigPath: Config(opts)}, Args: Args(opts)}
}

// Start writes the home, starts a private tmux server whose pane execs
// Continue, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	return realcli.Start(ctx, CLI, Launch(opts))
}

// signals reads a screen with Continue's classifier.
func signals(text string) cont.Signals {
	s, _ := cont.Provider().Classify(text, "").Signals.(cont.Signals)
	return s
}

// Ready reports the first screen: an empty composer over Continue's
// footer, no turn running.
func Ready(text, _ string) bool {
	s := signals(text)
	return s.Footer && s.Chrome == screen.ChromeComposer && s.Composer == "" && s.BusyLine == 0
}

// Submitted reports a screen on which the prompt was taken: a turn runs,
// or the composer is empty again (a fast turn already ended).
func Submitted(text, _ string) bool {
	s := signals(text)
	return s.BusyLine != 0 || (s.Chrome == screen.ChromeComposer && s.Composer == "")
}
