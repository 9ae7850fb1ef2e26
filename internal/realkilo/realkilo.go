// Package realkilo describes Kilo Code (@kilocode/cli, an OpenCode fork: a
// Bun binary that draws OpenCode's screen) to the real-CLI harness
// (internal/realcli): a fresh HOME whose ~/.config/kilo/kilo.json is
// OpenCode's configuration (one custom provider at the fake server, bash
// allowed or asked for: realopencode.Config), an environment that turns
// off what it would fetch or start offline (docs/providers.md, "Kilo Code:
// its start"), and OpenCode's ready and taken screens with Kilo's agent,
// "Code".
//
// It is test support: the tests in e2e/ and the conformance cases use it.
package realkilo

import (
	"context"
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/kilo"
)

// ShellTool is OpenCode's: Kilo sends the fake server the same requests
// (the key and the model are realcli.OpenAIKey and realcli.Model).
const ShellTool = realopencode.ShellTool

// Options configure one Kilo session: Common (BaseURL is the fake Chat
// Completions API, ending in /v1; ReadyTimeout 300 s and Settle 1 s by
// default) and whether it asks before it runs a bash command.
type Options struct {
	realcli.Common
	// Ask makes it ask before it runs a bash command ("permission":
	// {"bash": "ask"}). Otherwise bash is allowed.
	Ask bool
	// Auto starts it with --auto, as OpenCode: permissions that are not
	// denied are granted without asking (with Ask, bash is asked for in
	// the config and the flag grants it).
	Auto bool
}

// Quiet are the variables that keep Kilo from what it cannot reach
// offline and does not need for a turn: the update check, the models.dev
// and Kilo gateway model lists, telemetry, the daemon, codebase indexing,
// LSP downloads, the session ingest and presence (docs/providers.md says
// what each one saved).
var Quiet = []string{
	"KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_MODELS_FETCH=1", "KILO_TELEMETRY_LEVEL=off",
	"KILO_NO_DAEMON=1", "KILO_DISABLE_CODEBASE_INDEXING=1", "KILO_DISABLE_LSP_DOWNLOAD=1",
	"KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_PRESENCE=1",
}

// Env is Kilo's whole environment: nothing of the developer's own
// settings leaks in.
func Env(opts Options) []string { return CLI.Env(opts.Common, Quiet...) }

// ConfigFile is where Kilo reads its global configuration, under HOME.
var ConfigFile = filepath.Join(".config", "kilo", "kilo.json")

// Config is ~/.config/kilo/kilo.json: OpenCode's format, with Kilo's
// snapshots (a git store of the work folder, for its undo) off: on a
// loaded machine their first build outlasts Kilo's patience, and Kilo then
// stops the turn before the request to ask "Do you want to disable
// Snapshots for this repository?" (its question dialog, "Snapshot is
// slow"), which no test is about.
func Config(opts Options) map[string]any {
	c := realopencode.Config(realopencode.Options{Common: opts.Common, Ask: opts.Ask})
	c["snapshot"] = false
	return c
}

// Screen is OpenCode's screen with Kilo's default agent.
var Screen = realopencode.Screen{Agent: "Code"}

// CLI describes Kilo Code to the harness. Its start is slow on a loaded
// machine (a 170 MB Bun binary that loads its bundle twice, in the TUI
// and in its server worker), hence the long ReadyTimeout; so is a turn's
// start: at a load average of 40–60 its prompt showed in the transcript
// and nothing else for over 16 s (no request yet, no "esc interrupt"),
// hence the long Grace.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "kilo", Package: kilo.Provider().CLI, Version: kilo.Version},
	Ready: Screen.Ready, Submitted: Screen.Submitted,
	EnterDelay: 500 * time.Millisecond, ReadyTimeout: 300 * time.Second, Settle: time.Second,
	Grace: 90 * time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// Kilo, and waits until its composer shows (plus Settle).
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common, Env: Env(opts),
		Args: realopencode.Args(realopencode.Options{Auto: opts.Auto}),
		JSON: map[string]any{ConfigFile: Config(opts)}})
}
