// Package realcopilot describes GitHub Copilot CLI (a native binary that
// speaks the OpenAI Chat Completions API to a provider of the user's own,
// "BYOK") to the real-CLI harness (internal/realcli): a fresh HOME whose
// ~/.copilot trusts the work folder and hides the banner and tips; the
// environment that makes it offline and points it at the fake server
// (COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_API_KEY,
// COPILOT_MODEL) and at the package it unpacked once at install
// (XDG_CACHE_HOME); and the screens that say it is ready and took a
// prompt.
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realcopilot

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/copilot"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ShellTool is the name of Copilot CLI's shell tool (for
// fakemodel.ChatCompletions.ShellTool).
const ShellTool = "bash"

// Options configure one Copilot CLI session: Common (BaseURL is the fake
// Chat Completions API, ending in /v1) and what only Copilot CLI has.
type Options struct {
	realcli.Common
	// Ask starts it without --allow-all-tools: it asks before it runs a
	// command ("Do you want to run this command?").
	Ask bool
	// Yolo starts it with --yolo (tools, paths and URLs all allowed) in
	// place of --allow-all-tools.
	Yolo bool
	// Untrusted leaves the work folder out of the trusted folders: the
	// folder-trust dialog comes first.
	Untrusted bool
	// Args are more arguments (a --plugin-dir with a hook).
	Args []string
}

// Env is Copilot CLI's whole environment: offline, its model the fake
// server's, no update, and the package the binary unpacks on its first
// start taken from the install's cache (235 MB, about 9 s, otherwise
// unpacked again under every fresh HOME).
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL="+opts.BaseURL, "COPILOT_PROVIDER_API_KEY="+realcli.OpenAIKey, "COPILOT_MODEL="+realcli.Model,
		// A model outside its catalog gets a warning about its limits
		// otherwise.
		"COPILOT_PROVIDER_MAX_PROMPT_TOKENS=128000", "COPILOT_PROVIDER_MAX_OUTPUT_TOKENS=8192",
		"XDG_CACHE_HOME="+CacheHome())
}

// CacheHome is where scripts/install-cli.sh had the binary unpack its
// package (XDG_CACHE_HOME=<install>/xdg-cache when it asked the version).
func CacheHome() string { return filepath.Join(CLI.CacheDir(), "xdg-cache") }

// Args are its command-line arguments: --allow-all-tools (or --yolo)
// unless it is to ask, and opts.Args.
func Args(opts Options) []string {
	var args []string
	switch {
	case opts.Ask:
	case opts.Yolo:
		args = append(args, "--yolo")
	default:
		args = append(args, "--allow-all-tools")
	}
	return append(args, opts.Args...)
}

// Config is ~/.copilot/config.json (the file Copilot CLI manages): the
// work folder trusted unless opts.Untrusted.
func Config(opts Options) map[string]any {
	c := map[string]any{"appTipShown": true}
	if !opts.Untrusted {
		c["trustedFolders"] = []string{opts.Workdir}
	}
	return c
}

// Settings is ~/.copilot/settings.json: no banner, no tips, no IDE.
func Settings() map[string]any {
	return map[string]any{"banner": "never", "showTipsOnStartup": false, "ide": map[string]any{"autoConnect": false}}
}

// JSON are the home's files: ~/.copilot/config.json and settings.json.
func JSON(opts Options) map[string]any {
	return map[string]any{
		filepath.Join(".copilot", "config.json"):   Config(opts),
		filepath.Join(".copilot", "settings.json"): Settings(),
	}
}

// CLI describes Copilot CLI to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "copilot", Package: copilot.Provider().CLI, Version: copilot.Version},
	Ready: Ready, Submitted: Submitted,
	EnterDelay: 500 * time.Millisecond, ReadyTimeout: 90 * time.Second, Settle: time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// Copilot CLI, and waits until its composer shows (plus Settle), or, when
// untrusted, its folder-trust dialog.
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	l := realcli.Launch{Common: opts.Common, Env: Env(opts), Args: Args(opts), JSON: JSON(opts)}
	if opts.Untrusted {
		l.Ready = TrustAsked
	}
	return realcli.Start(ctx, CLI, l)
}

// IdleFooter starts the footer of an idle composer.
const IdleFooter = "← open sidebar · "

// Ready reports the composer with the idle footer under it.
func Ready(text, _ string) bool {
	plain := screen.Plain(text)
	return strings.Contains(plain, IdleFooter) && copilot.Provider().Draft(plain) == "" && hasComposer(plain)
}

// TrustAsked reports the folder-trust dialog.
func TrustAsked(text, _ string) bool {
	return strings.Contains(screen.Plain(text), "Do you trust the files in this folder?")
}

// Submitted reports a screen on which the prompt was taken: the footer
// says a turn runs, or the composer is empty again (a fast turn already
// ended).
func Submitted(text, _ string) bool {
	plain := screen.Plain(text)
	if strings.Contains(plain, " Working") || strings.Contains(plain, "esc esc interrupt") {
		return true
	}
	return hasComposer(plain) && copilot.Provider().Draft(plain) == ""
}

// hasComposer reports "❯" alone at column 0: the empty composer.
func hasComposer(plain string) bool {
	for _, l := range strings.Split(plain, "\n") {
		if strings.TrimRight(l, " ") == "❯" {
			return true
		}
	}
	return false
}

// SessionSaved reports whether Copilot CLI, run with HOME home, has written
// text (a prompt) to a session's events.jsonl under ~/.copilot/session-state.
// It writes that file some time after the turn, not at once: killed before,
// it has no conversation to go on with, and --continue starts a new one
// (seen in 3 runs of 7 of TestRealTeamHookAndResumeOfCopilot).
func SessionSaved(home, text string) bool {
	files, _ := filepath.Glob(filepath.Join(home, ".copilot", "session-state", "*", "events.jsonl"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}
