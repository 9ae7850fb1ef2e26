package realclaude

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

func TestClaudeJSONTrustsTheWorkFolder(t *testing.T) {
	var cfg struct {
		HasCompletedOnboarding bool
		Projects               map[string]map[string]any
	}
	b, err := json.MarshalIndent(ClaudeJSON(Options{Common: realcli.Common{Workdir: "/tmp/a \"quoted\" dir"}}), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if !cfg.HasCompletedOnboarding || cfg.Projects["/tmp/a \"quoted\" dir"]["hasTrustDialogAccepted"] != true {
		t.Fatalf("%s", b)
	}
	b, _ = json.MarshalIndent(ClaudeJSON(Options{Common: realcli.Common{Workdir: "/w"}, Untrusted: true}), "", "  ")
	if strings.Contains(string(b), "hasTrustDialogAccepted") {
		t.Fatalf("untrusted, yet: %s", b)
	}
}

func TestSettingsSkipTheBypassWarningAndCarryTheHooks(t *testing.T) {
	b, err := json.MarshalIndent(Settings(Options{}), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"skipDangerousModePermissionPrompt": true`) || strings.Contains(string(b), "hooks") {
		t.Fatalf("%s", b)
	}
	if strings.Contains(string(b), "defaultMode") {
		t.Fatalf("a permission mode in the settings brings up a dialog: %s", b)
	}
	b, _ = json.MarshalIndent(Settings(Options{Hooks: map[string]string{"Stop": "/bin/hook --flag", "StopFailure": "/bin/hook"}}), "", "  ")
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if h := s.Hooks["Stop"]; len(h) != 1 || h[0].Hooks[0].Command != "/bin/hook --flag" || h[0].Hooks[0].Type != "command" {
		t.Fatalf("%s", b)
	}
	if h := s.Hooks["StopFailure"]; len(h) != 1 || h[0].Hooks[0].Command != "/bin/hook" {
		t.Fatalf("%s", b)
	}
}

func TestEnvIsCleanAndPointsAtTheFakeServer(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "a-real-key")
	env := Env(Options{Common: realcli.Common{Home: "/h", BaseURL: "http://127.0.0.1:1"}, MaxRetries: 2})
	for _, want := range []string{"HOME=/h", "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "ANTHROPIC_AUTH_TOKEN=" + AuthToken,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_MAX_RETRIES=2"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %s: %v", want, env)
		}
	}
	for _, e := range env {
		if strings.HasPrefix(e, "ANTHROPIC_API_KEY=") {
			t.Fatalf("the developer's API key leaks in: %v", env)
		}
	}
	if got := Args(Options{}); !slices.Equal(got, []string{"--dangerously-skip-permissions"}) {
		t.Fatalf("args %v", got)
	}
	if got := Args(Options{Permissions: Ask}); !slices.Equal(got, []string{"--permission-mode", "default"}) {
		t.Fatalf("args %v", got)
	}
}

const rule = "────────────────────────────────────────────────────────────"

func TestComposerAndSubmitted(t *testing.T) {
	screen := func(composer, footer string) string {
		return "❯ an old prompt\n\n● an answer\n\n" + rule + "\n" + composer + "\n" + rule + "\n" + footer + "\n"
	}
	for _, tc := range []struct {
		screen          string
		composer        string
		ready, submited bool
	}{
		{screen("❯ ", "  ⏵⏵ bypass permissions on (shift+tab to cycle)"), "", true, true},
		{screen("❯ draft text", "  ⏵⏵ bypass permissions on (shift+tab to cycle)"), "draft text", true, false},
		{screen("❯ draft text", "  ⏵⏵ bypass permissions on · esc to interrupt"), "draft text", true, true},
		{screen("\x1b[2m❯\x1b[0m Resend your message to try again", ""), "Resend your message to try again", true, true},
		{screen("❯\u00a0Once fixed, resend your message", ""), "Once fixed, resend your message", true, true},
		{"Do you want to proceed?\n ❯ 1. Yes\n   2. No\n", "", false, false},
	} {
		c, ok := Composer(realcli.StripANSI(tc.screen))
		if c != tc.composer || ok != tc.ready || Ready(tc.screen, "") != tc.ready || Submitted(tc.screen, "") != tc.submited {
			t.Errorf("composer %q %v, ready %v, submitted %v for\n%s", c, ok, Ready(tc.screen, ""), Submitted(tc.screen, ""), tc.screen)
		}
	}
}

// A real session: starts ready, answers one prompt through the fake model,
// and Close leaves no process and no tmux server behind.
func TestStartSubmitClose(t *testing.T) {
	bin := CLI.Require(t)
	ctx := context.Background()
	srv, err := fakemodel.Start(ctx, fakemodel.AnthropicMessages{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Start(ctx, Options{Common: realcli.Common{Bin: bin, Workdir: work, Home: filepath.Join(root, "home"), BaseURL: srv.URL, Width: 100, Height: 30}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.Socket, "hfclaude-e2e") {
		t.Fatalf("socket %q", s.Socket)
	}
	t.Logf("ready after %v", s.Ready.Sub(s.Started).Round(time.Millisecond))
	srv.Script(fakemodel.Answer("Hello from the fake model."))
	if err := s.Submit(ctx, "Say hello"); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err = s.WaitFor(wctx, 100*time.Millisecond, func(text, _ string) bool {
		p := realcli.StripANSI(text)
		return strings.Contains(p, "● Hello from the fake model.") && !strings.Contains(p, "esc to interrupt")
	})
	if err != nil {
		text, _, _ := s.CapturePlain(ctx)
		t.Fatalf("no answer: %v\n%s\nproblems: %v", err, text, srv.Problems())
	}
	if turns := srv.Turns(); len(turns) != 1 || !strings.HasSuffix(turns[0].UserText, "Say hello") {
		t.Fatalf("turns %+v", turns)
	}
	pid := s.PanePID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if realcli.Alive(pid) {
		t.Fatalf("claude (pid %d) still runs after Close", pid)
	}
	if err := exec.Command("tmux", "-L", s.Socket, "list-sessions").Run(); err == nil {
		t.Fatal("the tmux server still runs after Close")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
