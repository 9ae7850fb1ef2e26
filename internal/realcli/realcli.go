// Package realcli holds what the real-CLI harnesses (realcodex, realclaude)
// share: finding the pinned binary the install scripts put in the cache,
// reading a screen without its escape sequences, and telling whether a
// process still runs.
package realcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNoBinary: the CLI is not installed where the tests look.
var ErrNoBinary = errors.New("binary not found")

// Pin is one pinned CLI: Name is both the cache folder's prefix and the
// binary's link name, Env the variable that overrides where it is.
type Pin struct {
	Name, Version, Env string
}

// CacheDir is where scripts/install-<Name>.sh installs the pinned version:
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
		return "", fmt.Errorf("%s %w at %s (run scripts/install-%s.sh, or set %s)", p.Name, ErrNoBinary, path, p.Name, p.Env)
	}
	return path, nil
}

// StripANSI removes CSI and OSC escape sequences, for the harnesses' own
// screen checks (the classifiers have their own, stricter ones).
func StripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}

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
