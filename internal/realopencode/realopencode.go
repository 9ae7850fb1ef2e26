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
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/opencode"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the pinned OpenCode version the tests and fixtures are for.
const Version = opencode.Version

// BinEnv names the environment variable that points at the opencode binary.
const BinEnv = "HANDOFF_OPENCODE_BIN"

func pin() realcli.Pin { return realcli.Pin{Name: "opencode", Version: Version, Env: BinEnv} }

// Binary finds the binary: $BinEnv if set, else the install script's link
// in the cache.
func Binary() (string, error) { return pin().Binary() }

// APIKey and Model are what OpenCode sends the fake server.
const (
	APIKey = "handoff-fake-openai-key"
	Model  = "fake-model"
)

// ShellTool is the name of OpenCode's shell tool (for
// fakemodel.ChatCompletions.ShellTool).
const ShellTool = "bash"

// Options configure one OpenCode session.
type Options struct {
	Bin     string // the opencode binary (see Binary)
	Workdir string // its cwd
	Home    string // a fresh, empty HOME
	BaseURL string // the fake Chat Completions API, ending in /v1
	// Ask makes it ask before it runs a bash command. Otherwise bash is
	// allowed.
	Ask bool
	// Auto starts it with --auto: permissions that are not denied are
	// granted without asking (with Ask, bash is asked for and granted).
	Auto bool
	// Terminal is the terminal it is told it runs in; the zero value is
	// TERM=xterm-256color COLORTERM=truecolor.
	Terminal realcli.Terminal
	// Width and Height of the pane; 120x40 by default.
	Width, Height int
	// ReadyTimeout bounds the wait for the composer; 90 s by default.
	ReadyTimeout time.Duration
	// Settle is waited after the composer first shows; 1 s by default.
	Settle time.Duration
}

// Env is OpenCode's whole environment: nothing of the developer's own
// settings leaks in.
func Env(opts Options) []string {
	return realcli.WithTerminal([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + opts.Home,
		"TERM=xterm-256color",
		"COLORTERM=truecolor",
		"LANG=C.UTF-8",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
	}, opts.Terminal)
}

// Args are OpenCode's command-line arguments for opts.
func Args(opts Options) []string {
	if opts.Auto {
		return []string{"--auto"}
	}
	return nil
}

// Config is ~/.config/opencode/opencode.json.
func Config(opts Options) ([]byte, error) {
	bash := "allow"
	if opts.Ask {
		bash = "ask"
	}
	c := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       "fake/" + Model,
		"small_model": "fake/" + Model,
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Fake",
			"options": map[string]any{"baseURL": opts.BaseURL, "apiKey": APIKey},
			"models":  map[string]any{Model: map[string]any{"name": Model}},
		}},
		"permission": map[string]any{"bash": bash, "edit": "allow"},
	}
	return json.MarshalIndent(c, "", "  ")
}

// Session is OpenCode running in a private tmux server.
type Session = realcli.Session

// CLI describes OpenCode to the harness.
var CLI = realcli.CLI{
	Pin:        pin(),
	Package:    opencode.Provider().CLI,
	Session:    "opencode",
	Ready:      Ready,
	Submitted:  Submitted,
	Enters:     4,
	EnterDelay: 500 * time.Millisecond,
}

// Start writes the home, starts a private tmux server whose pane execs
// OpenCode, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*Session, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("realopencode: Options.BaseURL is required")
	}
	cfg, err := Config(opts)
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
		Files: map[string][]byte{filepath.Join(".config", "opencode", "opencode.json"): cfg},
		Env:   Env(opts), Args: Args(opts),
		Width: opts.Width, Height: opts.Height,
		SocketPrefix: "hfopencode-e2e",
		ReadyTimeout: opts.ReadyTimeout,
		Settle:       opts.Settle,
	})
}

// Placeholder starts the text of OpenCode's empty composer on its first
// screen ("Ask anything… "Fix a TODO in the codebase"").
const Placeholder = "Ask anything"

// Ready reports the first screen: the empty composer with its placeholder
// and the agent line ("Build · fake-model Fake").
func Ready(text, _ string) bool {
	plain := screen.Plain(text)
	if !strings.Contains(plain, Placeholder) {
		return false
	}
	for _, l := range strings.Split(plain, "\n") {
		if agentLine(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

// agentLine reports the composer's agent line: "┃  Build · fake-model
// Fake", "┃  Build auto · …" with --auto.
func agentLine(t string) bool {
	in := strings.TrimSpace(strings.TrimPrefix(t, "┃"))
	return strings.HasPrefix(in, "Build") && strings.Contains(in, "· "+Model)
}

// Submitted reports a screen on which the prompt was taken: the hint line
// under the composer says "esc interrupt" (a turn runs), or the composer is
// empty again (a fast turn already ended). The history's footers cannot
// say it: an earlier turn left one.
func Submitted(text, _ string) bool {
	plain := screen.Plain(text)
	return strings.Contains(plain, "esc interrupt") || composerEmpty(plain)
}

// composerEmpty reports a composer ("┃" lines above its agent line "┃
// Build · fake-model Fake") with nothing but the placeholder in it.
func composerEmpty(plain string) bool {
	lines := strings.Split(plain, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(t, "┃") || !agentLine(t) {
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
