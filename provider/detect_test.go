package provider_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// realScreens are the real screens of each provider, captured from its CLI.
var realScreens = map[string]string{
	"codex":    "../codex/testdata/real-0.169",
	"claude":   "../claude/testdata/real-2.1.330",
	"gemini":   "../gemini/testdata/real-0.61.0",
	"qwen":     "../qwen/testdata/real-0.24.4",
	"opencode": "../opencode/testdata/real-1.18.33",
	"pi":       "../pi/testdata/real-0.73.1",
}

// Every real screen, with its title and "node" as the pane's command (what
// tmux shows for a Node CLI: no name to go by), is recognised as its own
// provider's or as nobody's, never as another's. Most are recognised: the
// screens a CLI shows without its chrome (a dialog in the composer's place)
// may need the command or --provider.
func TestDetectRecognisesEachProvidersRealScreens(t *testing.T) {
	for name, dir := range realScreens {
		seen, hit := 0, 0
		for _, s := range conformance.LoadScreens(t, dir) {
			b, err := os.ReadFile(filepath.Join(dir, s.File))
			if err != nil {
				t.Fatal(err)
			}
			got, err := provider.Detect("node", s.Title, string(b))
			seen++
			switch {
			case err == nil && got == name:
				hit++
			case errors.Is(err, provider.ErrNoMatch):
				t.Logf("%s %s: not recognised without the command (%s)", name, s.File, s.Status)
			default:
				t.Errorf("%s %s (title %q): detected %q, %v", name, s.File, s.Title, got, err)
			}
		}
		t.Logf("%s: %d of %d real screens recognised by title and screen", name, hit, seen)
		if hit*10 < seen*8 {
			t.Errorf("%s: only %d of %d real screens recognised", name, hit, seen)
		}
	}
}

func TestDetectByCommand(t *testing.T) {
	for _, name := range provider.Names() {
		if got, err := provider.Detect("/usr/bin/"+name, "", "some text\n"); err != nil || got != name {
			t.Errorf("command %s: got %q, %v", name, got, err)
		}
	}
}

func TestDetectNoneOrTwoIsAnErrorNamingTheCandidates(t *testing.T) {
	_, err := provider.Detect("bash", "user@host", "$ ls\nREADME.md\n$\n")
	if !errors.Is(err, provider.ErrNoMatch) {
		t.Fatalf("a shell: %v, want ErrNoMatch", err)
	}
	for _, n := range provider.Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("the error %q does not list %s", err, n)
		}
	}
	_, err = provider.Detect("node", "◇  Ready (work)", "› Ask Codex to do anything\n")
	if !errors.Is(err, provider.ErrAmbiguous) || !strings.Contains(err.Error(), "codex and gemini") {
		t.Fatalf("two matching: %v, want ErrAmbiguous naming codex and gemini", err)
	}
}

// Qwen Code and Gemini CLI are given a longer pause before Enter than the
// driver's default (their Provider().EnterDelay); the others
// take the default.
func TestEnterDelayIsTheProvidersOwn(t *testing.T) {
	for _, n := range []string{"qwen", "gemini"} {
		if d := provider.EnterDelay(n); d < time.Second {
			t.Errorf("%s: %v, want at least a second", n, d)
		}
	}
	for _, n := range []string{"codex", "claude", "nosuch"} {
		if d := provider.EnterDelay(n); d != 0 {
			t.Errorf("%s: %v, want 0 (the driver's default)", n, d)
		}
	}
}
