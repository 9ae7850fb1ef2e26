// Package realcodex runs the real OpenAI Codex CLI in a private tmux server
// for end-to-end tests: a fresh CODEX_HOME whose config points Codex at a
// fake model server, a trusted work folder, a readiness wait, captures with
// the pane title, keys and pastes, and a cleanup that ends everything the
// session started (tmux server, Codex, and an app-server daemon should one
// have been started despite the config).
//
// It is test support: the tests in e2e/ and the fixture capture use it.
package realcodex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// Options configure one Codex session: Common (Workdir is trusted in the
// config, Home is a fresh CODEX_HOME, BaseURL the fake model server ending
// in /v1, the zero Terminal is TERM=xterm-256color with this process's
// COLORTERM and NO_COLOR; ReadyTimeout 30 s by default) and what only
// Codex has.
type Options struct {
	realcli.Common
	// Model defaults to DefaultModel. Its catalog entry decides the tools
	// Codex offers; gpt-5.5 offers the exec_command function.
	Model string
	// ApprovalPolicy defaults to "never"; "on-request" with SandboxMode
	// "workspace-write" lets escalated commands ask for approval.
	ApprovalPolicy string
	// SandboxMode defaults to "danger-full-access".
	SandboxMode string
	// Mode, when set, starts Codex the way its users do instead: the
	// config names no approval policy and no sandbox, and the mode's flag
	// (ModeArgs) decides them.
	Mode string
	// HideTips turns off the random "└ Tip: …" line Codex prints under some
	// replies ([tui] show_tooltips = false), for tests that compare the
	// screen's last message byte for byte.
	HideTips bool
	// Notify is Codex's notify program and its arguments (run with a JSON
	// description of each completed turn); nil for none.
	Notify []string
	// TopConfig is appended to the config's top-level keys (before its
	// tables): e.g. an unknown key, to see Codex's configuration warning.
	TopConfig string
	// Args follow the binary on its command line (e.g. "resume", "--last").
	Args []string
	// SocketPrefix starts the private tmux server's socket name;
	// "handoff-e2e" by default, or $HANDOFF_TMUX_PREFIX when set.
	SocketPrefix string
	// Ready, when set, replaces the readiness check (the status line shows
	// the model and the cwd), e.g. for a pane too narrow to show the cwd.
	Ready func(text, title string) bool
}

// The modes users run Codex in (Options.Mode).
const (
	// ModeBypass: --dangerously-bypass-approvals-and-sandbox.
	ModeBypass = "bypass"
	// ModeApproveForMe: --approve-for-me, which replaced --full-auto
	// (0.169 refuses that flag): workspace-write sandbox, approvals
	// reviewed automatically.
	ModeApproveForMe = "approve-for-me"
	// ModeDefault: no flag, Codex's own defaults for a trusted folder.
	ModeDefault = "default"
)

// ModeArgs are the command-line arguments of a mode.
func ModeArgs(mode string) []string {
	switch mode {
	case ModeBypass:
		return []string{"--dangerously-bypass-approvals-and-sandbox"}
	case ModeApproveForMe:
		return []string{"--approve-for-me"}
	}
	return nil
}

// DefaultModel is the model slug the sessions use: one Codex 0.169 knows,
// whose tool set includes exec_command, and for which the upgrade nudge can
// be marked as seen.
const DefaultModel = "gpt-5.5"

// CLI describes Codex to the harness.
var CLI = realcli.CLI{
	Pin:       realcli.Pin{Name: "codex", Package: codex.Provider().CLI, Version: codex.Version},
	Submitted: Submitted,
	// Codex drops an Enter now and then (right after start, or too close
	// to a paste); a second one submits.
	Enters: 2, ReadyTimeout: 30 * time.Second,
}

// Config returns the config.toml for opts: the fake provider with retries
// off (an error shows at once instead of after minutes of backoff), the
// work folder trusted, no app-server daemon (it would copy ~400 MB into
// CODEX_HOME/packages and outlive the TUI) and the model-upgrade screen
// marked as seen.
func Config(opts Options) string {
	opts = opts.withDefaults()
	q := tomlString
	tui := ""
	if opts.HideTips {
		tui = "\n[tui]\nshow_tooltips = false\n"
	}
	notify := ""
	if len(opts.Notify) > 0 {
		quoted := make([]string, len(opts.Notify))
		for i, a := range opts.Notify {
			quoted[i] = q(a)
		}
		notify = "notify = [" + strings.Join(quoted, ", ") + "]\n"
	}
	top := opts.TopConfig
	if top != "" && !strings.HasSuffix(top, "\n") {
		top += "\n"
	}
	policy := ""
	if opts.Mode == "" {
		policy = fmt.Sprintf("approval_policy = %s\nsandbox_mode = %s\n", q(opts.ApprovalPolicy), q(opts.SandboxMode))
	}
	return notify + fmt.Sprintf(`model = %s
model_provider = "fake"
%scheck_for_update_on_startup = false
%s
[model_providers.fake]
name = "Fake"
base_url = %s
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects.%s]
trust_level = "trusted"

[features]
daemon_auto_start = false

[notice.model_migrations]
%s = "gpt-6-sol"
%s`, q(opts.Model), policy, top, q(opts.BaseURL), q(opts.Workdir), q(opts.Model), tui)
}

// tomlString quotes s as a TOML basic string: backslash, quote and control
// characters escaped (Go's strconv.Quote would use \x escapes TOML lacks).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (o Options) withDefaults() Options {
	o.Model = cmp.Or(o.Model, DefaultModel)
	o.ApprovalPolicy = cmp.Or(o.ApprovalPolicy, "never")
	o.SandboxMode = cmp.Or(o.SandboxMode, "danger-full-access")
	o.SocketPrefix = cmp.Or(o.SocketPrefix, os.Getenv("HANDOFF_TMUX_PREFIX"), "handoff-e2e")
	return o
}

// Start writes the config into opts.Home, starts a private tmux server with
// Codex in its only pane, and waits until Codex is ready for a prompt (the
// status line shows the model and the cwd; before that Codex drops keys).
// On error everything started is ended again.
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	opts = opts.withDefaults()
	ready := opts.Ready
	if ready == nil {
		ready = func(text, _ string) bool {
			for _, line := range strings.Split(realcli.StripANSI(text), "\n") {
				if strings.Contains(line, " · "+opts.Workdir) && strings.Contains(strings.ToLower(line), strings.ToLower(opts.Model)) {
					return true
				}
			}
			return false
		}
	}
	home := opts.Home
	env := realcli.WithTerminal([]string{"CODEX_HOME=" + home, "TERM=xterm-256color", "LANG=C.UTF-8"}, opts.Terminal)
	return realcli.Start(ctx, CLI, realcli.Launch{Common: opts.Common,
		Files:        map[string][]byte{"config.toml": []byte(Config(opts))},
		Env:          env,
		Unset:        opts.Terminal.Unset(),
		Inherit:      true,
		Args:         append(ModeArgs(opts.Mode), opts.Args...),
		SocketPrefix: opts.SocketPrefix,
		Ready:        ready,
		AfterClose:   func() []error { return StopDaemons(home) },
	})
}

// Submitted reports a screen whose composer is empty again (its placeholder
// shows) or whose title spins: the prompt was taken.
func Submitted(text, title string) bool {
	return Spinning(title) || strings.Contains(realcli.StripANSI(text), "› "+Placeholder)
}

// Placeholder is the text of Codex's empty composer.
const Placeholder = "Ask Codex to do anything"

// Spinning reports a pane title with Codex's braille spinner in front: a
// turn is running.
func Spinning(title string) bool {
	r := []rune(title)
	return len(r) > 0 && r[0] >= 0x2800 && r[0] <= 0x28ff
}

// StopDaemons ends the app-server daemon processes whose pid files are under
// home/app-server-daemon, but only those whose executable or command line
// lies under home or names it — a pid file can be stale and its pid reused.
func StopDaemons(home string) []error {
	files, _ := filepath.Glob(filepath.Join(home, "app-server-daemon", "*.pid"))
	var errs []error
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var rec struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(b, &rec) != nil || rec.PID <= 0 {
			continue
		}
		if err := endProcess(rec.PID, home); err != nil {
			errs = append(errs, fmt.Errorf("daemon pid %d (%s): %w", rec.PID, f, err))
		}
	}
	return errs
}

// endProcess sends SIGTERM to pid, then SIGKILL if it is still there after
// two seconds. With mustMention set, a process whose command line does not
// mention it is left alone (it is not ours).
func endProcess(pid int, mustMention string) error {
	if !realcli.Alive(pid) {
		return nil
	}
	if mustMention != "" {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || !(bytes.Contains(cmdline, []byte(mustMention)) || strings.HasPrefix(exe, mustMention)) {
			return nil
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	// After kill-server Codex usually exits on the hang-up by itself.
	for time.Now().Before(deadline.Add(-1500*time.Millisecond)) && realcli.Alive(pid) {
		time.Sleep(50 * time.Millisecond)
	}
	return realcli.End(pid, time.Until(deadline))
}
