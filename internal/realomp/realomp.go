// Package realomp describes OMP, oh-my-pi's coding agent, to the real-CLI
// harness (internal/realcli): a fresh HOME whose ~/.omp/agent/models.yml
// names one provider (the fake Chat Completions API) and whose config.yml
// picks it, skips the setup wizard and the update check, and turns the
// large-paste menu off; Bun's folder first on PATH (OMP is a Bun
// program); in its asking mode the always-ask approval mode (every bash
// command asked for); and the screens that say it is ready and took a
// prompt.
package realomp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/omp"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ShellTool is the name of OMP's shell tool.
const ShellTool = "bash"

// Options configure one OMP session: Common (BaseURL is the fake Chat
// Completions API, ending in /v1; ReadyTimeout 90 s and Settle 2 s by
// default) and what only OMP has.
type Options struct {
	realcli.Common
	// Ask runs OMP in its always-ask approval mode: every bash command is
	// asked for ("❯ Approve" highlighted, Enter approves). Otherwise it
	// runs in its default, yolo (nothing asked).
	Ask bool
}

// BunDir is the folder of the Bun that scripts/install-cli.sh installs
// beside OMP (bin is OMP's dist/cli.js there, or a link to it): OMP's
// "#!/usr/bin/env bun" finds it first on PATH.
func BunDir(bin string) string {
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	// …/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js
	modules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(bin))))
	return filepath.Join(modules, "@oven", "bun-linux-x64", "bin")
}

// Env is OMP's whole environment: nothing of the developer's own settings
// leaks in, Bun is found, and the setup wizard is skipped.
func Env(opts Options) []string {
	env := CLI.Env(opts.Common, "OMP_SKIP_SETUP=1")
	for i, v := range env {
		if p, ok := strings.CutPrefix(v, "PATH="); ok {
			env[i] = "PATH=" + BunDir(opts.Bin) + string(os.PathListSeparator) + p
		}
	}
	return env
}

// dir is OMP's folder in its HOME.
var dir = filepath.Join(".omp", "agent")

// JSON are the files OMP finds in its HOME, YAML written as JSON (which
// YAML reads): the model and the settings.
func JSON(opts Options) map[string]any {
	mode := "yolo"
	if opts.Ask {
		mode = "always-ask"
	}
	return map[string]any{
		filepath.Join(dir, "models.yml"): map[string]any{"providers": map[string]any{"fake": map[string]any{
			"baseUrl": opts.BaseURL, "api": "openai-completions", "apiKey": realcli.OpenAIKey,
			"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
			"models": []any{map[string]any{"id": realcli.Model, "name": "Fake", "reasoning": false}},
		}}},
		filepath.Join(dir, "config.yml"): map[string]any{
			"modelRoles": map[string]any{"default": "fake/" + realcli.Model},
			"startup":    map[string]any{"setupWizard": false, "checkUpdate": false},
			"tools":      map[string]any{"approvalMode": mode},
			// A paste of 100 lines or more would open a menu first.
			"paste": map[string]any{"largeMenuThreshold": 0},
		},
	}
}

// CLI describes OMP to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "omp", Package: omp.Provider().CLI, Version: omp.Version},
	Ready: Ready, Submitted: Submitted,
	ReadyTimeout: 90 * time.Second, Settle: 2 * time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// OMP, and waits until its editor shows (plus Settle).
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common, Env: Env(opts), JSON: JSON(opts)})
}

// signals reads a screen with OMP's classifier.
func signals(text string) omp.Signals {
	s, _ := omp.Provider().Classify(text, "").Signals.(omp.Signals)
	return s
}

// Ready reports the first screen: the welcome box and an empty editor.
func Ready(text, _ string) bool {
	s := signals(text)
	return s.Chrome == screen.ChromeComposer && s.Composer == "" && s.BusyLine == 0 && s.Header
}

// Submitted reports a screen on which the prompt was taken: a turn runs,
// or the editor is empty again (a fast turn already ended).
func Submitted(text, _ string) bool {
	s := signals(text)
	return s.BusyLine != 0 || (s.Chrome == screen.ChromeComposer && s.Composer == "")
}
