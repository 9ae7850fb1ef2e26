// Package realdroid describes Factory's droid to the real-CLI harness
// (internal/realcli): a fresh HOME whose ~/.factory/settings.json names one
// custom model (the fake Chat Completions API, provider
// generic-chat-completion-api), trusts the work folder and turns the logo
// animation off; FACTORY_AIRGAP_ENABLED, so it needs no account and asks
// Factory's servers for nothing; --auto high unless it is to ask before
// each command (its approval dialog); and the screens that say it is
// ready and took a prompt.
package realdroid

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/droid"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ShellTool is the name of droid's shell tool, and ShellArgs the other
// arguments it requires.
const ShellTool = "Execute"

// ShellArgs are what droid's Execute requires besides the command (and it
// takes nothing else): a summary of three to eight words and a risk level.
// "medium", as a file write is: droid asks before it unless --auto is
// medium or high.
func ShellArgs() map[string]any {
	return map[string]any{"summary": "Run the requested shell command", "riskLevel": "medium",
		"riskLevelReason": "It writes one file in the work folder."}
}

// Options configure one droid session: Common (BaseURL is the fake Chat
// Completions API, ending in /v1; ReadyTimeout 90 s and Settle 1 s by
// default) and what only droid has.
type Options struct {
	realcli.Common
	// Ask leaves droid in its default autonomy (Off: every command is
	// asked for); otherwise it runs with --auto high.
	Ask bool
	// Hooks are settings.json hooks (event → shell command).
	Hooks map[string]string
}

// Env is droid's whole environment: nothing of the developer's own
// settings leaks in, and it runs air-gapped.
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "FACTORY_AIRGAP_ENABLED=true")
}

// displayName names the model in settings.json; droid calls it
// "custom:<displayName>-<index>".
const displayName = "Fake"

// JSON is ~/.factory/settings.json: the model, the trusted work folder, no
// logo animation, the hooks.
func JSON(opts Options) map[string]any {
	settings := map[string]any{
		"customModels": []any{map[string]any{
			"model": realcli.Model, "displayName": displayName, "baseUrl": opts.BaseURL, "apiKey": realcli.OpenAIKey,
			"provider": "generic-chat-completion-api", "maxOutputTokens": 4096,
		}},
		"sessionDefaultSettings": map[string]any{"model": "custom:" + displayName + "-0"},
		"logoAnimation":          "off",
		"trustedFolders":         map[string]any{opts.Workdir: map[string]any{"trustedAt": "2026-01-01T00:00:00.000Z"}},
	}
	return map[string]any{filepath.Join(".factory", "settings.json"): realcli.WithHooks(settings, opts.Hooks)}
}

// Args are droid's arguments: --auto high unless it is to ask.
func Args(opts Options) []string {
	if opts.Ask {
		return nil
	}
	return []string{"--auto", "high"}
}

// CLI describes droid to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "droid", Package: droid.Provider().CLI, Version: droid.Version},
	Ready: Ready, Submitted: Submitted,
	ReadyTimeout: 90 * time.Second, Settle: time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// droid, and waits until its composer shows and droid has its session
// (plus Settle).
//
// The composer alone is too early: droid draws it before its session
// exists, and a paste then can be lost (seen on a loaded machine; the
// composer starts again with the session). droid titles its window
// "⛬ Droid" until it has one, then names it ("⛬ New Session", a resumed
// session's own title): SessionShown. Its log says so too ("Session
// initialized", SessionUp), but droid writes its log every 20 s, so that
// word comes up to 20 s after the session (it was taken for a slow start
// of 10–20 s); it stands in for a title droid did not set.
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	log := filepath.Join(opts.Home, ".factory", "logs", "droid-log-single.log")
	ready := func(text, title string) bool { return Ready(text, title) && (SessionShown(title) || SessionUp(log)) }
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common, Env: Env(opts), JSON: JSON(opts), Args: Args(opts), Ready: ready})
}

// SessionShown reports whether droid's window title names a session: not
// the hostname it starts under, nor "⛬ Droid", which it shows until its
// session exists.
func SessionShown(title string) bool {
	name, ok := strings.CutPrefix(title, "⛬ ")
	return ok && strings.TrimSpace(name) != "" && name != "Droid"
}

// SessionUp reports whether droid's log says its session is initialized.
// droid writes its log every 20 s: the line comes late.
func SessionUp(log string) bool {
	b, err := os.ReadFile(log)
	return err == nil && bytes.Contains(b, []byte("[DaemonSessionController] Session initialized"))
}

// signals reads a screen with droid's classifier.
func signals(text string) droid.Signals {
	s, _ := droid.Provider().Classify(text, "").Signals.(droid.Signals)
	return s
}

// Ready reports the first screen: the header above the composer and its
// placeholder ('Try "…"').
func Ready(text, _ string) bool {
	s := signals(text)
	return s.Chrome == screen.ChromeComposer && s.Header && s.BusyLine == 0 && !s.Steer
}

// Submitted reports a screen on which the prompt was taken: the working
// line or the steer placeholder shows, or the composer is empty again (a
// fast turn already ended).
func Submitted(text, _ string) bool {
	s := signals(text)
	return s.BusyLine != 0 || s.Steer || (s.Chrome == screen.ChromeComposer && s.Composer == "")
}
