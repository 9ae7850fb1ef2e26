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
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/pi"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the pinned pi version the tests and fixtures are for.
const Version = pi.Version

// BinEnv names the environment variable that points at pi's launcher.
const BinEnv = "HANDOFF_PI_BIN"

func pin() realcli.Pin { return realcli.Pin{Name: "pi", Version: Version, Env: BinEnv} }

// Binary finds pi: $HANDOFF_PI_BIN, else the install script's link in the
// cache.
func Binary() (string, error) { return pin().Binary() }

// APIKey and Model are what pi sends the fake server; ShellTool is the
// name of its shell tool.
const (
	APIKey    = "handoff-fake-openai-key"
	Model     = "fake-model"
	ShellTool = "bash"
)

// Options configure one pi session.
type Options struct {
	Bin     string // pi's launcher (see Binary)
	Workdir string // its cwd
	Home    string // a fresh, empty HOME
	BaseURL string // the fake Chat Completions API, ending in /v1
	// Ask installs an extension that asks (a select dialog) before every
	// bash command; "Allow" is highlighted, Enter allows.
	Ask bool
	// Terminal is the terminal it is told it runs in; the zero value is
	// TERM=xterm-256color COLORTERM=truecolor.
	Terminal realcli.Terminal
	// Width and Height of the pane; 120x40 by default.
	Width, Height int
	// ReadyTimeout bounds the wait for the editor; 90 s by default.
	ReadyTimeout time.Duration
	// Settle is waited after the editor first shows; 1 s by default.
	Settle time.Duration
}

// Env is pi's whole environment: nothing of the developer's own settings
// leaks in, and nothing is fetched at start.
func Env(opts Options) []string {
	return realcli.WithTerminal([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + opts.Home,
		"TERM=xterm-256color",
		"COLORTERM=truecolor",
		"LANG=C.UTF-8",
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
	}, opts.Terminal)
}

// Files are what pi finds in its HOME: the model, the provider, and in the
// asking mode the extension that asks.
func Files(opts Options) (map[string][]byte, error) {
	models, err := json.MarshalIndent(map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": opts.BaseURL, "api": "openai-completions", "apiKey": APIKey,
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models": []any{map[string]any{"id": Model, "name": "Fake", "reasoning": false}},
	}}}, "", "  ")
	if err != nil {
		return nil, err
	}
	settings, err := json.MarshalIndent(map[string]any{"defaultProvider": "fake", "defaultModel": Model,
		"enableInstallTelemetry": false}, "", "  ")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(".pi", "agent")
	files := map[string][]byte{filepath.Join(dir, "models.json"): models, filepath.Join(dir, "settings.json"): settings}
	if opts.Ask {
		files[filepath.Join(dir, "extensions", "handoff-ask.ts")] = []byte(askExtension)
	}
	return files, nil
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

// Session is pi running in a private tmux server.
type Session = realcli.Session

// CLI describes pi to the harness.
var CLI = realcli.CLI{
	Pin:       pin(),
	Package:   pi.Provider().CLI,
	Session:   "pi",
	Ready:     Ready,
	Submitted: Submitted,
	Enters:    4,
}

// Start writes the home, starts a private tmux server whose pane execs pi,
// and waits until its editor shows (plus Settle).
func Start(ctx context.Context, opts Options) (*Session, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("realpi: Options.BaseURL is required")
	}
	files, err := Files(opts)
	if err != nil {
		return nil, err
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 90 * time.Second
	}
	if opts.Settle == 0 {
		opts.Settle = time.Second
	}
	return realcli.Start(ctx, CLI, realcli.Launch{
		Bin: opts.Bin, Workdir: opts.Workdir, Home: opts.Home,
		Files: files,
		Env:   Env(opts),
		Width: opts.Width, Height: opts.Height,
		SocketPrefix: "hfpi-e2e",
		ReadyTimeout: opts.ReadyTimeout,
		Settle:       opts.Settle,
	})
}

// Ready reports the first screen: the header and an empty editor.
func Ready(text, _ string) bool {
	c := pi.Provider().Classify(text, "")
	s, _ := c.Signals.(pi.Signals)
	return s.Chrome == screen.ChromeComposer && s.Composer == "" && strings.Contains(screen.Plain(text), "pi v"+Version)
}

// Submitted reports a screen on which the prompt was taken: the working
// line shows, or the editor is empty again (a fast turn already ended).
func Submitted(text, _ string) bool {
	c := pi.Provider().Classify(text, "")
	s, _ := c.Signals.(pi.Signals)
	return s.BusyLine != 0 || (s.Chrome == screen.ChromeComposer && s.Composer == "")
}
