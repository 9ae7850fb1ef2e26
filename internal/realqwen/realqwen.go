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
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/qwen"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the pinned Qwen Code version the tests and fixtures are for.
const Version = qwen.Version

// BinEnv names the environment variable that points at the qwen launcher.
const BinEnv = "HANDOFF_QWEN_BIN"

func pin() realcli.Pin { return realcli.Pin{Name: "qwen", Version: Version, Env: BinEnv} }

// Binary finds the launcher: $BinEnv if set, else the install script's
// link in the cache.
func Binary() (string, error) { return pin().Binary() }

// APIKey and Model are what Qwen Code sends the fake server.
const (
	APIKey = "handoff-fake-openai-key"
	Model  = "fake-model"
)

// Options configure one Qwen Code session.
type Options struct {
	Bin     string // the qwen launcher (see Binary)
	Workdir string // its cwd
	Home    string // a fresh, empty HOME
	BaseURL string // the fake Chat Completions API (OPENAI_BASE_URL)
	// Ask starts it in the default approval mode: it asks before it runs a
	// shell command. Otherwise --yolo.
	Ask bool
	// Approval, when set, is the approval mode instead: "yolo",
	// "auto-edit" or "default" (the footer's mode line differs).
	Approval string
	// Terminal is the terminal it is told it runs in; DefaultTerminal
	// when zero.
	Terminal realcli.Terminal
	// Hooks maps a hook event (Stop, UserPromptSubmit, …) to a shell
	// command Qwen Code runs for it.
	Hooks map[string]string
	// Width and Height of the pane; 120x40 by default.
	Width, Height int
	// ReadyTimeout bounds the wait for the composer; 120 s by default (a
	// loaded machine has seen more than 60 s of "Initializing...").
	ReadyTimeout time.Duration
	// Settle is waited after the composer first shows; 1 s by default.
	Settle time.Duration
}

// Env is Qwen Code's whole environment: nothing of the developer's own
// OPENAI_*/QWEN_* settings leaks in.
func Env(opts Options) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + opts.Home,
		"LANG=C.UTF-8",
		"OPENAI_API_KEY=" + APIKey,
		"OPENAI_BASE_URL=" + opts.BaseURL,
		"OPENAI_MODEL=" + Model,
	}
	return append(env, opts.Terminal.Env()...)
}

// Args are its command-line arguments: --yolo, or the approval mode named
// (its own default is "auto", which asks a model about each call).
func Args(opts Options) []string {
	if mode := ApprovalMode(opts); mode != "yolo" {
		return []string{"--approval-mode", mode}
	}
	return []string{"--yolo"}
}

// ApprovalMode is the mode opts start Qwen Code in: Approval, else
// "default" with Ask, else "yolo".
func ApprovalMode(opts Options) string {
	switch {
	case opts.Approval != "":
		return opts.Approval
	case opts.Ask:
		return "default"
	}
	return "yolo"
}

// Settings is ~/.qwen/settings.json.
func Settings(opts Options) ([]byte, error) {
	s := map[string]any{
		"memory":   map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
		"ui":       map[string]any{"enableFollowupSuggestions": false},
		"tools":    map[string]any{"useRipgrep": false},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "disableAutoUpdate": true},
		"security": map[string]any{"folderTrust": map[string]any{"enabled": false}},
		"ide":      map[string]any{"hasSeenNudge": true},
	}
	if hooks := realcli.CommandHooks(opts.Hooks); hooks != nil {
		s["hooks"] = hooks
	}
	return json.MarshalIndent(s, "", "  ")
}

// Session is Qwen Code running in a private tmux server.
type Session = realcli.Session

// CLI describes Qwen Code to the harness.
var CLI = realcli.CLI{
	Pin:        pin(),
	Package:    qwen.Provider().CLI,
	Session:    "qwen",
	Ready:      Ready,
	Submitted:  Submitted,
	Enters:     4,
	EnterDelay: time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// Qwen Code, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*Session, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("realqwen: Options.BaseURL is required")
	}
	st, err := Settings(opts)
	if err != nil {
		return nil, err
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 120 * time.Second
	}
	if opts.Settle == 0 {
		opts.Settle = time.Second
	}
	return realcli.Start(ctx, CLI, realcli.Launch{
		Bin: opts.Bin, Workdir: opts.Workdir, Home: opts.Home,
		Files: map[string][]byte{filepath.Join(".qwen", "settings.json"): st},
		Env:   Env(opts), Args: Args(opts),
		Width: opts.Width, Height: opts.Height,
		SocketPrefix: "hfqwen-e2e",
		ReadyTimeout: opts.ReadyTimeout,
		Settle:       opts.Settle,
	})
}

// Placeholder is the text of Qwen Code's empty composer.
const Placeholder = "Type your message or @path/to/file"

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
