// Package provider is the one place that knows which agent CLIs handoff-fsm
// can read: it maps a provider name ("codex", "claude", …) to its screen classifier.
// Every command and library user picks a classifier here, so adding an agent
// CLI is one new package and one line in registry.
//
// The engine (fsm) and the tmux driver never import this package: they take
// any handoff.Classifier.
package provider

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/codex"
)

// Default is the provider used when none is named.
const Default = "codex"

// ErrUnknown is wrapped by Lookup's error for a name with no provider.
var ErrUnknown = errors.New("unknown provider")

// registry lists the providers by name. A function, so no caller can change
// the list for everyone.
func registry() map[string]func() handoff.Classifier {
	return map[string]func() handoff.Classifier{
		"codex":  func() handoff.Classifier { return codex.New() },
		"claude": func() handoff.Classifier { return claude.New() },
	}
}

// Names lists the known providers, sorted.
func Names() []string {
	var names []string
	for n := range registry() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the classifier of the named provider ("" is Default). An
// unknown name is an error wrapping ErrUnknown that lists the known ones.
func Lookup(name string) (handoff.Classifier, error) {
	if name == "" {
		name = Default
	}
	mk, ok := registry()[name]
	if !ok {
		return nil, fmt.Errorf("%w %q: known providers are %s", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return mk(), nil
}

// ForCommand picks the provider whose name the pane's command contains
// ("codex", "claude"), else Default: what a board of unknown panes reads
// them with.
func ForCommand(command string) string {
	for _, n := range Names() {
		if strings.Contains(strings.ToLower(command), n) {
			return n
		}
	}
	return Default
}
