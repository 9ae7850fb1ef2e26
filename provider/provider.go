// Package provider is the one place that knows which agent CLIs handoff-fsm
// can read: a list of provider values (screen.Provider, one exported by each
// provider package), looked up by name ("codex", "claude", "gemini", …) or
// recognised from a pane (Detect, Recognise). Every command and library user
// picks a classifier here, so adding an agent CLI is one new package and one
// entry in registry (docs/providers.md).
//
// The engine (fsm) and the tmux driver never import this package: they take
// any handoff.Classifier.
package provider

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/opencode"
	"github.com/handoff-fsm/handoff-fsm/pi"
	"github.com/handoff-fsm/handoff-fsm/qwen"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Default is the provider used when none is named.
const Default = "codex"

// ErrUnknown is wrapped by Lookup's error for a name with no provider.
var ErrUnknown = errors.New("unknown provider")

// registry lists the providers: each package's one value (screen.Provider),
// one entry each; a seventh provider adds its entry here. A function, so no
// caller can change the list for everyone.
func registry() []screen.Provider {
	return []screen.Provider{
		claude.Provider(),
		codex.Provider(),
		gemini.Provider(),
		opencode.Provider(),
		pi.Provider(),
		qwen.Provider(),
	}
}

// find is the named provider ("" is Default).
func find(name string) (screen.Provider, bool) {
	if name == "" {
		name = Default
	}
	for _, p := range registry() {
		if p.Name == name {
			return p, true
		}
	}
	return screen.Provider{}, false
}

// All lists every provider, sorted by name.
func All() []screen.Provider {
	all := registry()
	slices.SortFunc(all, func(a, b screen.Provider) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Names lists the known providers, sorted.
func Names() []string {
	var names []string
	for _, p := range All() {
		names = append(names, p.Name)
	}
	return names
}

// Lookup returns the classifier of the named provider ("" is Default),
// which is also its handoff.Composer. An
// unknown name is an error wrapping ErrUnknown that lists the known ones.
func Lookup(name string) (handoff.Classifier, error) {
	if p, ok := find(name); ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w %q: known providers are %s", ErrUnknown, name, strings.Join(Names(), ", "))
}

// Command is the named provider's CLI executable, as its package installs
// it: each is its provider's name (codex, claude, gemini, qwen, opencode,
// pi). "" is Default's; an unknown name has none (""). A team file runs it
// when an agent names no command.
func Command(name string) string {
	if name == "" {
		name = Default
	}
	if slices.Contains(Names(), name) {
		return name
	}
	return ""
}

// Recognizes reports whether the named provider recognises a pane as its
// CLI's, from its foreground command, title and screen (what Detect asks
// each provider). An unknown name recognises nothing.
func Recognizes(name, command, title, capture string) bool {
	p, ok := find(name)
	return ok && p.Recognize(command, title, capture)
}

// EnterDelay is the pause the named provider's CLI needs between a paste
// and Enter, 0 when the driver's default will do (or the name is unknown).
func EnterDelay(name string) time.Duration {
	if p, ok := find(name); ok && name != "" {
		return p.EnterDelay
	}
	return 0
}

// ForCommand picks the provider whose name is the base name of the pane's
// command ("codex", "/usr/bin/claude", "codex-x86_64-linux"), else Default:
// what a board of unknown panes reads them with. A command that only holds
// a name ("pip", "spin", "epic") is not that provider.
func ForCommand(command string) string {
	base := strings.ToLower(filepath.Base(strings.TrimSpace(command)))
	for _, n := range Names() {
		if base == n {
			return n
		}
		if rest, ok := strings.CutPrefix(base, n); ok && strings.IndexAny(rest[:1], "-_.@") == 0 {
			return n
		}
	}
	return Default
}

// Auto is the provider name that asks Detect to pick the provider from the
// pane itself.
const Auto = "auto"

// Errors wrapped by Detect's error.
var (
	ErrNoMatch   = errors.New("no provider recognises the pane")
	ErrAmbiguous = errors.New("more than one provider recognises the pane")
)

// Detect picks the provider whose CLI the pane runs: each provider
// recognises its own pane by its foreground command, its title and its
// screen. None or more than one is an error (wrapping ErrNoMatch or
// ErrAmbiguous) that names the candidates.
func Detect(command, title, capture string) (string, error) {
	var hits []string
	for _, p := range All() {
		if p.Recognize(command, title, capture) {
			hits = append(hits, p.Name)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("%w (command %q, title %q); give --provider, one of %s", ErrNoMatch, command, strings.TrimSpace(title), strings.Join(Names(), ", "))
	}
	return "", fmt.Errorf("%w: %s match (command %q, title %q); give --provider", ErrAmbiguous, strings.Join(hits, " and "), command, strings.TrimSpace(title))
}
