// Package realpi describes pi, the coding agent, to the real-CLI harness
// (internal/realcli): a fresh HOME whose ~/.pi/agent/models.json names one
// provider (the fake Chat Completions API) and whose settings.json picks
// it; PI_OFFLINE, so it asks the network for nothing at start; in its
// asking mode an extension that asks before every bash command (pi has no
// permission dialog of its own); and the screens that say it is ready and
// took a prompt.
package realpi

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/pi"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ShellTool is the name of pi's shell tool.
const ShellTool = "bash"

// Options configure one pi session: Common (BaseURL is the fake Chat
// Completions API, ending in /v1; ReadyTimeout 90 s and Settle 1 s by
// default) and what only pi has.
type Options struct {
	realcli.Common
	// Ask installs an extension that asks (a select dialog) before every
	// bash command; "Allow" is highlighted, Enter allows.
	Ask bool
}

// Env is pi's whole environment: nothing of the developer's own settings
// leaks in, and nothing is fetched at start.
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
}

// dir is pi's folder in its HOME.
var dir = filepath.Join(".pi", "agent")

// JSON are the JSON files pi finds in its HOME: the model and the provider.
func JSON(opts Options) map[string]any {
	return map[string]any{
		filepath.Join(dir, "models.json"): map[string]any{"providers": map[string]any{"fake": map[string]any{
			"baseUrl": opts.BaseURL, "api": "openai-completions", "apiKey": realcli.OpenAIKey,
			"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
			"models": []any{map[string]any{"id": realcli.Model, "name": "Fake", "reasoning": false}},
		}}},
		filepath.Join(dir, "settings.json"): map[string]any{"defaultProvider": "fake", "defaultModel": realcli.Model,
			"enableInstallTelemetry": false},
	}
}

// Files are the other files: in the asking mode the extension that asks.
func Files(opts Options) map[string][]byte {
	if !opts.Ask {
		return nil
	}
	return map[string][]byte{filepath.Join(dir, "extensions", "handoff-ask.ts"): []byte(askExtension)}
}

// askExtension asks before every bash command, as a permission dialog of
// another CLI would.
const askExtension = `export default function (pi: any) {
	pi.on("tool_call", async (event: any, ctx: any) => {
		if (event.toolName !== "bash") return undefined;
		const choice = await ctx.ui.select("Run this command?\n\n  " + event.input.command, ["Allow", "Block"]);
		return choice === "Allow" ? undefined : { block: true, reason: "Blocked by the user" };
	});
}
`

// CLI describes pi to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "pi", Package: pi.Provider().CLI, Version: pi.Version},
	Ready: Ready, Submitted: Submitted,
	ReadyTimeout: 90 * time.Second, Settle: time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs pi,
// and waits until its editor shows (plus Settle).
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common, Env: Env(opts), JSON: JSON(opts), Files: Files(opts)})
}

// Ready reports the first screen: the header ("pi v0.73.1", whichever
// release runs: doctor and scripts/versions.sh start others than the pin)
// and an empty editor.
func Ready(text, _ string) bool {
	c := pi.Provider().Classify(text, "")
	s, _ := c.Signals.(pi.Signals)
	return s.Chrome == screen.ChromeComposer && s.Composer == "" && strings.Contains(screen.Plain(text), "pi v")
}

// Submitted reports a screen on which the prompt was taken: the working
// line shows, or the editor is empty again (a fast turn already ended).
func Submitted(text, _ string) bool {
	c := pi.Provider().Classify(text, "")
	s, _ := c.Signals.(pi.Signals)
	return s.BusyLine != 0 || (s.Chrome == screen.ChromeComposer && s.Composer == "")
}
