package provider_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

func TestEveryProviderClassifiesAScreen(t *testing.T) {
	for _, name := range provider.Names() {
		cl, err := provider.Lookup(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Any classifier must return a known status for an empty screen
		// rather than panic.
		if st := cl.Classify("", "").Status; st == "" {
			t.Errorf("%s: empty status for an empty screen", name)
		}
	}
	if !slices.Contains(provider.Names(), provider.Default) {
		t.Fatalf("the default provider %q is not registered", provider.Default)
	}
}

func TestEmptyNameIsTheDefault(t *testing.T) {
	a, err := provider.Lookup("")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := provider.Lookup(provider.Default)
	screen := "› Reply with READY\n\n• READY\n\n›\n  100% context left\n"
	if !reflect.DeepEqual(a.Classify(screen, ""), b.Classify(screen, "")) {
		t.Fatal("the empty name is not the default provider")
	}
}

func TestUnknownProviderNamesTheKnownOnes(t *testing.T) {
	_, err := provider.Lookup("no-such-cli")
	if !errors.Is(err, provider.ErrUnknown) {
		t.Fatalf("got %v, want ErrUnknown", err)
	}
	for _, n := range provider.Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("message %q does not name %s", err, n)
		}
	}
}

// The Claude Code provider reads its own screens: a finished turn is
// completed, the spinner is processing, an API error is an error quoting it.
func TestClaudeProviderReadsClaudeScreens(t *testing.T) {
	cl, err := provider.Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	rule := strings.Repeat("─", 40)
	chrome := "\n" + rule + "\n❯\u00a0\n" + rule + "\n  ⏵⏵ bypass permissions on\n"
	for screen, want := range map[string]handoff.Status{
		"❯ Say hello\n● Hello.\n✻ Brewed for 1s" + chrome:               handoff.StatusCompleted,
		"❯ Say hello\n✶ Computing…" + chrome:                            handoff.StatusProcessing,
		"❯ Say hello\n● API Error: 500 Internal server error." + chrome: handoff.StatusError,
	} {
		got := cl.Classify(screen, "✳ Claude Code")
		if got.Status != want {
			t.Errorf("%q: %s (%s), want %s", screen, got.Status, got.Reason, want)
		}
		if want == handoff.StatusError && !strings.HasPrefix(got.Detail, "API Error: 500") {
			t.Errorf("detail %q", got.Detail)
		}
	}
}

// Every provider says which CLI and version it is proven on, and its hook.
func TestEveryProviderSaysWhatItReads(t *testing.T) {
	all := provider.All()
	if len(all) < 3 {
		t.Fatalf("%d providers, want codex, claude and gemini at least", len(all))
	}
	// Hook may be "": a CLI whose turn-end hook is not proven (OpenCode's
	// would be a plugin).
	for _, p := range all {
		if p.Name == "" || p.CLI == "" || p.Version == "" {
			t.Errorf("incomplete: %+v", p)
		}
	}
}

// The Gemini CLI provider reads its own screens.
func TestGeminiProviderReadsGeminiScreens(t *testing.T) {
	cl, err := provider.Lookup("gemini")
	if err != nil {
		t.Fatal(err)
	}
	up, low := strings.Repeat("▄", 40), strings.Repeat("▀", 40)
	chrome := "\n" + strings.Repeat("─", 40) + "\n YOLO Ctrl+Y\n" + up + "\n *   Type your message or @path/to/file\n" + low + "\n workspace\n"
	for screen, want := range map[string]handoff.Status{
		up + "\n > Say hello\n" + low + "\n✦ Hello.\n                ? for shortcuts" + chrome:            handoff.StatusCompleted,
		up + "\n > Say hello\n" + low + "\n ⠼ Thinking... (esc to cancel, 1s)" + chrome:                   handoff.StatusProcessing,
		up + "\n > Say hello\n" + low + "\n✕ [API Error: boom]\n                ? for shortcuts" + chrome: handoff.StatusError,
	} {
		if got := cl.Classify(screen, ""); got.Status != want {
			t.Errorf("%q: %s (%s), want %s", screen, got.Status, got.Reason, want)
		}
	}
}

// A pane's command names its provider by its base name: "pip" or "spin"
// is not pi, a path or a platform suffix is still the CLI.
func TestForCommandComparesTheBaseName(t *testing.T) {
	for cmd, want := range map[string]string{
		"pi": "pi", "/usr/local/bin/pi": "pi", "pip": provider.Default, "spin": provider.Default, "epic": provider.Default,
		"claude": "claude", "/root/.cache/claude-2.1/claude": "claude", "codex-x86_64-unknown-linux-musl": "codex",
		"opencode": "opencode", "node": provider.Default, "": provider.Default, "Gemini": "gemini",
	} {
		if got := provider.ForCommand(cmd); got != want {
			t.Errorf("ForCommand(%q) = %q, want %q", cmd, got, want)
		}
	}
	// Detect goes by the same rule: a shell named like a provider is
	// nobody's.
	for _, cmd := range []string{"pip", "spin", "/usr/bin/epic", "claudette", "mycodex"} {
		if got, err := provider.Detect(cmd, "user@host", "$ ls\n"); !errors.Is(err, provider.ErrNoMatch) {
			t.Errorf("Detect(%q) = %q, %v; want ErrNoMatch", cmd, got, err)
		}
	}
	if !provider.Recognizes("pi", "/usr/local/bin/pi", "", "") || provider.Recognizes("pi", "pip", "", "") {
		t.Error("Recognizes does not compare the command's base name")
	}
}

// Every provider's classifier carries its composer, so every pane built
// from Lookup delivers inertly: a prompt that starts with '/' (a command in
// every CLI; '!' is plain text in Cline) gets the lead line.
func TestEveryProviderDeliversThroughItsComposer(t *testing.T) {
	for _, name := range provider.Names() {
		c, err := provider.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		comp, ok := c.(handoff.Composer)
		if !ok {
			t.Fatalf("%s: the classifier is no handoff.Composer", name)
		}
		if got := comp.Inert("/rm -rf x"); got != handoff.PromptLead+"\n/rm -rf x" {
			t.Errorf("%s: Inert = %q", name, got)
		}
	}
}
