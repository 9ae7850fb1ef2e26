package provider_test

import (
	"context"
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
	"continue": "../continue/testdata/real-1.5.47",
	"copilot":  "../copilot/testdata/real-1.0.102",
	"claude":   "../claude/testdata/real-2.1.330",
	"gemini":   "../gemini/testdata/real-0.61.0",
	"qwen":     "../qwen/testdata/real-0.24.4",
	"opencode": "../opencode/testdata/real-1.18.33",
	"pi":       "../pi/testdata/real-0.73.1",
	"cline":    "../cline/testdata/real-3.0.65",
	"droid":    "../droid/testdata/real-0.225.2",
	"omp":      "../omp/testdata/real-18.2.3",
	"kilo":     "../kilo/testdata/real-7.7.7",
	"kimi":     "../kimi/testdata/real-2.1.0",
}

// Every real screen (of every terminal and mode folder too), with its
// title and "node" as the pane's command (what
// tmux shows for a Node CLI: no name to go by), is recognised as its own
// provider's or as nobody's, never as another's. Most are recognised: the
// screens a CLI shows without its chrome (a dialog in the composer's place)
// may need the command or --provider.
func TestDetectRecognizesEachProvidersRealScreens(t *testing.T) {
	for name, dir := range realScreens {
		seen, hit := 0, 0
		for _, d := range conformance.Dirs(dir) {
			for _, s := range conformance.LoadScreens(t, d) {
				b, err := os.ReadFile(filepath.Join(d, s.File))
				if err != nil {
					t.Fatal(err)
				}
				got, err := provider.Detect("node", s.Title, string(b))
				seen++
				switch {
				case err == nil && got == name:
					hit++
				case errors.Is(err, provider.ErrNoMatch):
					t.Logf("%s %s: not recognised without the command (%s)", name, filepath.Join(d, s.File), s.Status)
				default:
					t.Errorf("%s %s (title %q): detected %q, %v", name, filepath.Join(d, s.File), s.Title, got, err)
				}
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

// look is a pane looked at once, as a test gives it.
type look struct {
	command, title, capture string
	err                     error
}

func (l look) Look(context.Context) (string, string, string, error) {
	return l.command, l.title, l.capture, l.err
}

// The one rule for a pane's provider: the one that recognises it; else the
// one its command names, with the reason none was recognised; a look that
// failed keeps its error for errors.Is.
func TestRecognizePicksTheRecognizerElseTheCommandsProvider(t *testing.T) {
	ctx := context.Background()
	if name, err := provider.Recognize(ctx, look{command: "node", title: "✳ Claude Code", capture: "hello\n"}); err != nil || name != "claude" {
		t.Errorf("Claude Code's title: %q, %v", name, err)
	}
	name, err := provider.Recognize(ctx, look{command: "/bin/bash", title: "user@host", capture: "$ ls\n"})
	if !errors.Is(err, provider.ErrNoMatch) || name != provider.Default {
		t.Errorf("a shell: %q, %v; want the default and ErrNoMatch", name, err)
	}
	name, err = provider.Recognize(ctx, look{command: "node", title: "◇  Ready (work)", capture: "› Ask Codex to do anything\n"})
	if !errors.Is(err, provider.ErrAmbiguous) || name != provider.Default {
		t.Errorf("two recognise it: %q, %v; want the default and ErrAmbiguous", name, err)
	}
	gone := errors.New("pane gone")
	if name, err := provider.Recognize(ctx, look{command: "opencode", err: gone}); !errors.Is(err, gone) || name != "opencode" {
		t.Errorf("a failed look: %q, %v; want opencode (its command) and the look's error", name, err)
	}
	if name, err := provider.Pick("claude", "", "$\n"); err != nil || name != "claude" {
		t.Errorf("Pick by command: %q, %v", name, err)
	}
}

// The screen alone (no title, "node" as the command: a CLI that sets no
// title, or a terminal that drops it) never names another provider: no
// provider's chrome rule claims another CLI's screen (Claude Code's "❯"
// composer and Copilot CLI's are told apart by their footers).
func TestDetectByScreenAloneNeverNamesAnotherProvider(t *testing.T) {
	for name, dir := range realScreens {
		for _, d := range conformance.Dirs(dir) {
			for _, s := range conformance.LoadScreens(t, d) {
				b, err := os.ReadFile(filepath.Join(d, s.File))
				if err != nil {
					t.Fatal(err)
				}
				got, err := provider.Detect("node", "", string(b))
				if err == nil && got != name || errors.Is(err, provider.ErrAmbiguous) {
					t.Errorf("%s %s without its title: detected %q, %v", name, filepath.Join(filepath.Base(d), s.File), got, err)
				}
			}
		}
	}
}

// Kilo Code 7.7.7 draws OpenCode's screen under the title "Kilo CLI",
// with its own agent ("Code") on the composer's agent line once it has
// loaded. With "node" as the command (its npm launcher) it is Kilo's by its
// title, and never OpenCode's: without the title, a composer whose agent
// line is still blank is nobody's; OpenCode's own first screen stays
// OpenCode's without its title. The screen is the real CLI's first screen
// while it loads (testdata/kilo-7.7.7-idle.txt).
func TestDetectTellsKiloCodeFromOpenCode(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "kilo-7.7.7-idle.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := provider.Detect("node", "Kilo CLI", string(b)); err != nil || got != "kilo" {
		t.Errorf("a Kilo Code pane: detected %q, %v; want kilo", got, err)
	}
	if got, err := provider.Detect("node", "", string(b)); !errors.Is(err, provider.ErrNoMatch) {
		t.Errorf("a loading Kilo Code pane without its title: detected %q, %v; want ErrNoMatch", got, err)
	}
	oc, err := os.ReadFile(filepath.Join("..", "opencode", "testdata", "real-1.18.33", "80x24", "idle-fresh.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := provider.Detect("node", "", string(oc)); err != nil || got != "opencode" {
		t.Errorf("OpenCode's first screen without its title: detected %q, %v; want opencode", got, err)
	}
}
