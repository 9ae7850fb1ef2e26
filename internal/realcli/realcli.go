// Package realcli is the one real-CLI harness: it runs an agent CLI,
// described by a CLI value and a Launch (binary, home files, environment,
// arguments, readiness), alone in a private tmux server, with captures,
// keys, pastes, a verified Submit and a Close that leaves no process
// behind. realcodex, realclaude and realgemini are its descriptors.
package realcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ErrNoBinary: the CLI is not installed where the tests look.
var ErrNoBinary = errors.New("binary not found")

// Pin is one pinned CLI: Name is both the cache folder's prefix and the
// binary's link name, Env the variable that overrides where it is.
type Pin struct {
	Name, Version, Env string
}

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

// Binary finds the CLI: $Env if set, else the install script's link
// <CacheDir>/<Name>. The error wraps ErrNoBinary and says how to install it.
func (p Pin) Binary() (string, error) {
	if path := os.Getenv(p.Env); path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("%s %w: %s=%s: %v", p.Name, ErrNoBinary, p.Env, path, err)
		}
		return path, nil
	}
	path := filepath.Join(p.CacheDir(), p.Name)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s %w at %s (run scripts/install-cli.sh %s, or set %s)", p.Name, ErrNoBinary, path, p.Name, p.Env)
	}
	return path, nil
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

// Alive reports whether pid is a running (not zombie) process.
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] != 'Z' && b[i+2] != 'X'
}

// CommandHooks is the "hooks" block of a settings.json in the form Claude
// Code made common (Gemini CLI and Qwen Code read the same): each event
// runs one shell command, with the event's JSON on stdin. It is nil when
// there are no hooks, so the key can be left out.
func CommandHooks(hooks map[string]string) map[string]any {
	if len(hooks) == 0 {
		return nil
	}
	block := map[string]any{}
	for event, command := range hooks {
		block[event] = []any{map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": command}},
		}}
	}
	return block
}
