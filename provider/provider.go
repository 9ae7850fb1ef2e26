// Package provider is the one place that knows which agent CLIs handoff-fsm
// can read: it maps a provider name ("codex", "claude", "gemini", …) to its
// screen classifier, and says which CLI and version each is proven on. Every
// command and library user picks a classifier here, so adding an agent CLI
// is one new package and one line in registry.
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
)

// Default is the provider used when none is named.
const Default = "codex"

// ErrUnknown is wrapped by Lookup's error for a name with no provider.
var ErrUnknown = errors.New("unknown provider")

// Info says what a provider reads.
type Info struct {
	// Name is the provider's name (--provider NAME).
	Name string `json:"name"`
	// CLI is the agent CLI: its npm package.
	CLI string `json:"cli"`
	// Version is the CLI version its real screens and end-to-end tests are
	// proven on.
	Version string `json:"version"`
	// Hook is the CLI's hook (or notify event) that reports the end of a
	// turn, registered as `handoff-fsm hook --dir DIR`.
	Hook string `json:"hook"`
	// EnterDelay is the pause the CLI needs between a paste and Enter when
	// it is longer than the tmux driver's default (0: the default).
	EnterDelay time.Duration `json:"-"`

	classifier func() handoff.Classifier
	// composer is what the CLI's message box does with a prompt.
	composer handoff.Composer
	// recognize reports a pane that runs this provider's CLI, from its
	// foreground command, its title and its screen.
	recognize func(command, title, capture string) bool
}

// registry lists the providers, one line each. A function, so no caller
// can change the list for everyone.
func registry() []Info {
	return []Info{
		{"claude", claude.CLI, claude.Version, claude.Hook, 0, func() handoff.Classifier { return claude.New() }, claude.Composer(), claude.Recognize},
		{"codex", codex.CLI, codex.Version, codex.Hook, 0, func() handoff.Classifier { return codex.New() }, codex.Composer(), codex.Recognize},
		{"gemini", gemini.CLI, gemini.Version, gemini.Hook, gemini.EnterDelay, func() handoff.Classifier { return gemini.New() }, gemini.Composer(), gemini.Recognize},
		{"opencode", opencode.CLI, opencode.Version, opencode.Hook, 0, func() handoff.Classifier { return opencode.New() }, opencode.Composer(), opencode.Recognize},
		{"pi", pi.CLI, pi.Version, pi.Hook, 0, func() handoff.Classifier { return pi.New() }, pi.Composer(), pi.Recognize},
		{"qwen", qwen.CLI, qwen.Version, qwen.Hook, qwen.EnterDelay, func() handoff.Classifier { return qwen.New() }, qwen.Composer(), qwen.Recognize},
	}
}

// All lists what every provider reads, sorted by name.
func All() []Info {
	all := registry()
	slices.SortFunc(all, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
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
	if name == "" {
		name = Default
	}
	for _, p := range registry() {
		if p.Name == name {
			return composed{p.classifier(), p.composer}, nil
		}
	}
	return nil, fmt.Errorf("%w %q: known providers are %s", ErrUnknown, name, strings.Join(Names(), ", "))
}

// composed is a provider's classifier with its composer: the tmux driver
// finds the composer on the classifier it is given.
type composed struct {
	handoff.Classifier
	handoff.Composer
}

// EnterDelay is the pause the named provider's CLI needs between a paste
// and Enter, 0 when the driver's default will do (or the name is unknown).
func EnterDelay(name string) time.Duration {
	for _, p := range registry() {
		if p.Name == name {
			return p.EnterDelay
		}
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
		if p.recognize(command, title, capture) {
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
