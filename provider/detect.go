package provider

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// ForCommand picks the provider whose name is the base name of the pane's
// command ("codex", "/usr/bin/claude", "codex-x86_64-linux"), else Default:
// what a board of unknown panes reads them with. A command that only holds
// a name ("pip", "spin", "epic") is not that provider.
func ForCommand(command string) string {
	for _, p := range All() {
		if named(p, command) {
			return p.Name
		}
	}
	return Default
}

// named reports a command whose base name is p's name, alone or before a
// platform or version suffix ("codex-x86_64-linux", "claude.exe").
func named(p screen.Provider, command string) bool {
	base := strings.ToLower(filepath.Base(strings.TrimSpace(command)))
	rest, ok := strings.CutPrefix(base, p.Name)
	return ok && (rest == "" || strings.IndexAny(rest[:1], "-_.@") == 0)
}

// recognises reports a pane of p: its command names p, or p recognises its
// title and screen.
func recognises(p screen.Provider, command, title, capture string) bool {
	return named(p, command) || p.Recognize(title, capture)
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
		if recognises(p, command, title, capture) {
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

// Pick is the one rule that names the provider of a pane from one look at
// it: the provider that recognises it (Detect); when none or more than one
// does, the one its command names (ForCommand, else Default) together with
// Detect's error. A dispatch refuses on the error; a board reads the pane
// with the name and shows the error.
func Pick(command, title, capture string) (string, error) {
	name, err := Detect(command, title, capture)
	if err != nil {
		return ForCommand(command), err
	}
	return name, nil
}

// A Looker looks at a pane once: its foreground command, its title and its
// screen (tmuxdriver's Pane.Look).
type Looker interface {
	Look(ctx context.Context) (command, title, capture string, err error)
}

// Recognize looks at a pane once and Picks its provider: what every
// --provider auto does (send and the other pane commands, the board, the
// service). A look that fails returns the provider its command names, if
// any, and the look's error, wrapped: a pane that is gone stays
// errors.Is(err, handoff.ErrTerminalGone).
func Recognize(ctx context.Context, pane Looker) (string, error) {
	command, title, capture, err := pane.Look(ctx)
	if err != nil {
		return ForCommand(command), fmt.Errorf("look at the pane: %w", err)
	}
	return Pick(command, title, capture)
}
