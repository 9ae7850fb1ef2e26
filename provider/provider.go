// Package provider is the one place that knows which agent CLIs handoff-fsm
// can read: a list of provider values (screen.Provider, one exported by each
// provider package), looked up by name ("codex", "claude", "gemini", …) or
// recognised from a pane (Detect, Recognize). Every command and library user
// picks a classifier here, so adding an agent CLI is one new package and one
// entry in registry (docs/providers.md).
//
// The engine (fsm) and the tmux driver never import this package: they take
// any handoff.Classifier.
package provider

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/cline"
	"github.com/handoff-fsm/handoff-fsm/codex"
	cont "github.com/handoff-fsm/handoff-fsm/continue"
	"github.com/handoff-fsm/handoff-fsm/copilot"
	"github.com/handoff-fsm/handoff-fsm/droid"
	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/kilo"
	"github.com/handoff-fsm/handoff-fsm/kimi"
	"github.com/handoff-fsm/handoff-fsm/omp"
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
		cline.Provider(),
		codex.Provider(),
		cont.Provider(),
		droid.Provider(),
		copilot.Provider(),
		gemini.Provider(),
		kimi.Provider(),
		kilo.Provider(),
		omp.Provider(),
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
	return ok && recognises(p, command, title, capture)
}

// Launch is how a team starts the named provider's CLI (its hook wiring
// and resume arguments); the zero Launch for an unknown name.
func Launch(name string) screen.Launch {
	p, _ := find(name)
	return p.Launch
}

// EnterDelay is the pause the named provider's CLI needs between a paste
// and Enter, 0 when the driver's default will do (or the name is unknown).
func EnterDelay(name string) time.Duration {
	if p, ok := find(name); ok && name != "" {
		return p.EnterDelay
	}
	return 0
}

// Find is the named provider's value ("" is Default): its window of
// proven releases, its package; ok is false for an unknown name.
func Find(name string) (screen.Provider, bool) { return find(name) }
