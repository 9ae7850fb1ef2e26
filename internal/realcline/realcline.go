// Package realcline describes Cline's terminal UI to the real-CLI harness
// (internal/realcli): a fresh HOME whose ~/.cline/data/settings/providers.json
// names one OpenAI-compatible provider (the fake Chat Completions API: what
// `cline auth -p openai -k KEY -m MODEL -b URL` writes, without the 20 s
// that command takes here); a hub port of the session's own
// (CLINE_HUB_PORT), so parallel sessions never share the background hub
// Cline starts; the promotion it may show at start turned off
// (CLINE_DISABLE_CLINE_PASS_NOTICE) unless asked for; and the screens that
// say it is ready and took a prompt.
//
// Cline starts `cline --cline-hub-daemon` in a session of its own, which
// outlives the terminal UI: Close ends it (StopHub).
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realcline

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/cline"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ShellTool is Cline's shell tool, which takes a list of commands
// ({commands: [cmd]}).
const ShellTool = "run_commands"

// Options configure one Cline session: Common (BaseURL is the fake Chat
// Completions API, ending in /v1) and what only Cline has.
type Options struct {
	realcli.Common
	// Ask starts it with auto-approve off (--auto-approve false): it asks
	// before each tool call ("[y] Approve [n] Deny").
	Ask bool
	// Notice lets Cline show the promotion it may show at start (a dialog
	// that Esc closes); off by default.
	Notice bool
	// Hooks maps a hook, by the name its payload carries (agent_end,
	// prompt_submit, agent_error), to a shell command, written as
	// ~/.cline/hooks/<file>.sh (TaskComplete.sh, UserPromptSubmit.sh,
	// TaskError.sh).
	Hooks map[string]string
}

// hookFiles are the hook scripts' names by the hookName their payload
// carries (Cline 3.0.65's table).
var hookFiles = map[string]string{"agent_end": "TaskComplete", "prompt_submit": "UserPromptSubmit", "agent_error": "TaskError",
	"agent_start": "TaskStart", "agent_abort": "TaskCancel", "tool_call": "PreToolUse", "tool_result": "PostToolUse"}

// Env is Cline's whole environment: nothing of the developer's own
// settings leaks in; hubPort is its hub's port.
func Env(opts Options, hubPort int) []string {
	vars := []string{"CLINE_HUB_PORT=" + strconv.Itoa(hubPort)}
	if !opts.Notice {
		vars = append(vars, "CLINE_DISABLE_CLINE_PASS_NOTICE=1")
	}
	return CLI.Env(opts.Common, vars...)
}

// Args are its command-line arguments.
func Args(opts Options) []string {
	if opts.Ask {
		return []string{"--auto-approve", "false"}
	}
	return nil
}

// Providers is ~/.cline/data/settings/providers.json: the fake model as
// Cline's openai-compatible provider (without updatedAt Cline ignores it
// and asks to sign in).
func Providers(opts Options) map[string]any {
	return map[string]any{"version": 1, "lastUsedProvider": "openai-compatible", "modes": map[string]any{},
		"providers": map[string]any{"openai-compatible": map[string]any{
			"settings":  map[string]any{"provider": "openai-compatible", "apiKey": realcli.OpenAIKey, "model": realcli.Model, "baseUrl": opts.BaseURL},
			"updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}}
}

// Files are the hook scripts.
func Files(opts Options) map[string][]byte {
	files := map[string][]byte{}
	for hook, command := range opts.Hooks {
		name, ok := hookFiles[hook]
		if !ok {
			name = hook
		}
		files[filepath.Join(".cline", "hooks", name+".sh")] = []byte("#!/bin/sh\n" + command + "\n")
	}
	return files
}

// CLI describes Cline to the harness. Its first screen takes about 15 s on
// a loaded machine, and an Enter right after it is drawn is lost.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "cline", Package: cline.Provider().CLI, Version: cline.Version},
	Ready: Ready, Submitted: Submitted,
	ReadyTimeout: 120 * time.Second, Settle: 1500 * time.Millisecond, EnterDelay: 500 * time.Millisecond,
	PasteLF: cline.Provider().Composer.RawLineBreaks,
}

// Start writes the home, starts a private tmux server whose pane execs
// Cline, and waits until its composer shows (plus Settle). Close ends the
// hub Cline started too.
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("real cline: hub port: %w", err)
	}
	home := opts.Home
	l := realcli.Launch{Common: opts.Common, Env: Env(opts, port), Args: Args(opts), Files: Files(opts),
		JSON:       map[string]any{filepath.Join(".cline", "data", "settings", "providers.json"): Providers(opts)},
		AfterClose: func() []error { return StopHub(home) }}
	if opts.Notice {
		l.Ready = func(text, title string) bool {
			return Ready(text, title) || strings.Contains(screen.Plain(text), Notice)
		}
	}
	return realcli.Start(ctx, CLI, l)
}

// freePort is a port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Notice is the last line of the promotion Cline may show at start.
const Notice = "Press Enter to open, any other key to close"

// Ready reports a screen with the composer's placeholder ("What can I do
// for you?" on a fresh start, "Ask anything..." later) and Cline's
// footer.
func Ready(text, title string) bool {
	plain := screen.Plain(text)
	return (strings.Contains(plain, "❯ What can I do for you?") || strings.Contains(plain, "❯ Ask anything...")) &&
		strings.Contains(plain, "Act (Tab)") && !strings.Contains(plain, Notice)
}

// Submitted reports a screen whose composer is empty again: the prompt
// was taken.
func Submitted(text, _ string) bool {
	plain := screen.Plain(text)
	return strings.Contains(plain, "❯ Ask anything...") || strings.Contains(plain, "❯ What can I do for you?")
}

// Hubs are the pids of the hub daemons a Cline with this HOME started.
func Hubs(home string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && isHub(pid, home) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// StopHub ends the hub daemons (`cline --cline-hub-daemon`) that a Cline
// with this HOME started: those whose environment says HOME=home. They
// run in a session of their own, so ending the pane's processes does not
// reach them.
func StopHub(home string) []error {
	if home == "" {
		return nil
	}
	var errs []error
	for _, pid := range Hubs(home) {
		if err := realcli.End(pid, 2*time.Second); err != nil {
			errs = append(errs, fmt.Errorf("cline hub pid %d: %w", pid, err))
		}
	}
	return errs
}

// isHub reports a hub daemon of the Cline whose HOME is home.
func isHub(pid int, home string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte("--cline-hub-daemon")) {
		return false
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if string(kv) == "HOME="+home {
			return true
		}
	}
	return false
}
