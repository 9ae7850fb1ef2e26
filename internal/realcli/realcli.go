// Package realcli is the one real-CLI harness: it runs an agent CLI,
// described by a CLI value and a Launch (binary, home files, environment,
// arguments, readiness), alone in a private tmux server, with captures,
// keys, pastes, a verified Submit and a Close that leaves no process
// behind. realcodex, realclaude, realgemini, realqwen, realopencode,
// realpi and realcline are its descriptors: each a CLI value, its Options (Common and
// what only that CLI has) and the files, environment and arguments they
// make.
package realcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/proctable"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// OpenAIKey and Model are what a CLI that speaks an OpenAI-compatible
// API is configured to send the fake server (internal/fakemodel), which
// takes any key and any model's name.
const (
	OpenAIKey = "handoff-fake-openai-key"
	Model     = "fake-model"
)

// ErrNoBinary: the CLI is not installed where the tests look.
var ErrNoBinary = errors.New("binary not found")

// Pin is one pinned CLI: Name (the provider's) is the cache folder's
// prefix, the binary's link name and the tmux session's name; Package the
// npm package scripts/install-cli.sh installs at Version.
type Pin struct {
	Name, Package, Version string
}

// BinEnv names the variable that overrides where the binary is:
// HANDOFF_<NAME>_BIN.
func (p Pin) BinEnv() string { return "HANDOFF_" + strings.ToUpper(p.Name) + "_BIN" }

// CacheDir is where scripts/install-cli.sh <Name> installs the pinned version:
// ${XDG_CACHE_HOME:-$HOME/.cache}/handoff-fsm/<Name>-<Version>.
func (p Pin) CacheDir() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "handoff-fsm", p.Name+"-"+p.Version)
}

// Binary finds the CLI: $BinEnv if set, else the install script's link
// <CacheDir>/<Name>. The error wraps ErrNoBinary and says how to install it.
func (p Pin) Binary() (string, error) {
	if path := os.Getenv(p.BinEnv()); path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%s %w: %s=%s: %v", p.Name, ErrNoBinary, p.BinEnv(), path, err)
		}
		return path, nil
	}
	path := filepath.Join(p.CacheDir(), p.Name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s %w at %s (run scripts/install-cli.sh %s, or set %s)", p.Name, ErrNoBinary, path, p.Name, p.BinEnv())
	}
	return path, nil
}

// Require returns the CLI's binary for a test that runs it, after checking
// that tmux is there too. A missing one skips the test on a developer
// machine and fails it where CI is set: there the real-CLI tests must run.
func (p Pin) Require(t testing.TB) string {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s", what)
		}
		t.Skipf("skipping real %s test: %s", p.Name, what)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		missing("tmux is not installed")
	}
	bin, err := p.Binary()
	if errors.Is(err, ErrNoBinary) {
		missing(err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// StripANSI returns a capture as a person sees it: no escape sequences,
// lines without their trailing blanks (screen.Plain).
func StripANSI(s string) string { return screen.Plain(s) }

// Pause waits d, or less if ctx ends first.
func Pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// End ends pid: SIGTERM, then SIGKILL if it still runs when grace is
// over (proctable.End). An error says it outlived SIGKILL too.
func End(pid int, grace time.Duration) error {
	if left := proctable.End([]int{pid}, nil, grace); len(left) > 0 {
		return errors.New("still running after SIGKILL")
	}
	return nil
}

// Alive reports whether pid is a running (not zombie) process
// (proctable.Alive).
func Alive(pid int) bool { return proctable.Alive(pid) }

// WithHooks returns settings, a settings.json, with its "hooks" block in
// the form Claude Code made common (Gemini CLI and Qwen Code read the
// same): each event runs one shell command, with the event's JSON on
// stdin. Without hooks the key is left out.
func WithHooks(settings map[string]any, hooks map[string]string) map[string]any {
	if len(hooks) == 0 {
		return settings
	}
	block := map[string]any{}
	for event, command := range hooks {
		block[event] = []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": command}},
		}}
	}
	settings["hooks"] = block
	return settings
}
