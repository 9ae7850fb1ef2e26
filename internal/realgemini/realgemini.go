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
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// Version is the pinned Gemini CLI version the tests and fixtures are for.
const Version = gemini.Version

// BinEnv names the environment variable that points at the gemini
// launcher.
const BinEnv = "HANDOFF_GEMINI_BIN"

// ErrNoBinary: the CLI is not installed where the tests look.
var ErrNoBinary = realcli.ErrNoBinary

func pin() realcli.Pin { return realcli.Pin{Name: "gemini", Version: Version, Env: BinEnv} }

// CacheDir is where the install script installs the pinned version.
func CacheDir() string { return pin().CacheDir() }

// Binary finds the launcher: $BinEnv if set, else the install script's
// link in CacheDir.
func Binary() (string, error) { return pin().Binary() }

// StripANSI returns a capture as a person sees it (realcli.StripANSI).
func StripANSI(s string) string { return realcli.StripANSI(s) }

// APIKey is the key Gemini CLI sends the fake server.
const APIKey = "handoff-fake-gemini-key"

// Options configure one Gemini CLI session.
type Options struct {
	Bin     string // the gemini launcher (see Binary)
	Workdir string // its cwd
	Home    string // a fresh, empty HOME
	BaseURL string // the fake Gemini API (GOOGLE_GEMINI_BASE_URL)
	// Ask leaves the default approval mode: Gemini CLI asks before it runs
	// a shell command (its confirmation dialog). Otherwise --yolo.
	Ask bool
	// Approval, when set, is the approval mode instead: "yolo",
	// "auto_edit" or "default" (the mode line above the composer differs).
	Approval string
	// Terminal is the terminal it is told it runs in; DefaultTerminal
	// when zero.
	Terminal realcli.Terminal
	// Hooks maps a hook event (AfterAgent, BeforeAgent, Notification, …)
	// to a shell command Gemini CLI runs for it, with the event's JSON on
	// stdin.
	Hooks map[string]string
	// Width and Height of the pane; 120x40 by default.
	Width, Height int
	// ReadyTimeout bounds the wait for the composer; 60 s by default.
	ReadyTimeout time.Duration
	// Settle is waited after the composer first shows. 1 s by default.
	Settle time.Duration
	// Model, when set, is passed as --model.
	Model string
}

// Env is Gemini CLI's whole environment: nothing of the developer's own
// GEMINI_*/GOOGLE_* settings leaks in.
func Env(opts Options) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + opts.Home,
		"LANG=C.UTF-8",
		"GEMINI_API_KEY=" + APIKey,
		"GOOGLE_GEMINI_BASE_URL=" + opts.BaseURL,
	}
	return append(env, opts.Terminal.Env()...)
}

// Args are its command-line arguments.
func Args(opts Options) []string {
	var args []string
	switch mode := ApprovalMode(opts); mode {
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

// ApprovalMode is the mode opts start Gemini CLI in: Approval, else
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

// Settings is ~/.gemini/settings.json.
func Settings(opts Options) ([]byte, error) {
	s := map[string]any{
		"security": map[string]any{
			"auth":        map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false},
		},
		"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
		"ide":       map[string]any{"enabled": false, "hasSeenNudge": true},
	}
	if hooks := realcli.CommandHooks(opts.Hooks); hooks != nil {
		s["hooks"] = hooks
	}
	return json.MarshalIndent(s, "", "  ")
}

// Session is Gemini CLI running in a private tmux server.
type Session = realcli.Session

// CLI describes Gemini CLI to the harness.
var CLI = realcli.CLI{
	Pin:       pin(),
	Package:   "@google/gemini-cli",
	Session:   "gemini",
	Ready:     Ready,
	Submitted: Submitted,
	Enters:    4,
	// An Enter within about half a second of a paste is taken as part of
	// it (a new line in the composer).
	EnterDelay: gemini.Provider().EnterDelay,
}

// Start writes the home, starts a private tmux server whose pane execs
// Gemini CLI, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*Session, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("realgemini: Options.BaseURL is required")
	}
	st, err := Settings(opts)
	if err != nil {
		return nil, err
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 60 * time.Second
	}
	if opts.Settle == 0 {
		opts.Settle = time.Second
	}
	return realcli.Start(ctx, CLI, realcli.Launch{
		Bin: opts.Bin, Workdir: opts.Workdir, Home: opts.Home,
		Files: map[string][]byte{filepath.Join(".gemini", "settings.json"): st},
		Env:   Env(opts), Args: Args(opts),
		Width: opts.Width, Height: opts.Height,
		SocketPrefix: "hfgemini-e2e",
		ReadyTimeout: opts.ReadyTimeout,
		Settle:       opts.Settle,
	})
}

// Placeholder is the text of Gemini CLI's empty composer.
const Placeholder = "Type your message or @path/to/file"

// Banner is a line of the logo block Gemini CLI draws once it has loaded:
// before it, a prompt is queued ("Initializing... Prompts will be queued.")
// and keys are read late.
const Banner = "Gemini CLI v"

// Ready reports a screen with the banner and the empty composer.
func Ready(text, _ string) bool {
	plain := StripANSI(text)
	return strings.Contains(plain, Placeholder) && strings.Contains(plain, Banner)
}

// Submitted reports a screen whose composer is empty again or whose title
// says it works: the prompt was taken.
func Submitted(text, title string) bool {
	return strings.HasPrefix(title, "✦") || strings.Contains(StripANSI(text), Placeholder)
}
