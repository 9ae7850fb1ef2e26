package realcodex

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

func TestConfigPointsCodexAtTheFakeModelWithoutDaemon(t *testing.T) {
	cfg := Config(Options{Common: realcli.Common{Workdir: `/tmp/a "quoted" dir\x`, BaseURL: "http://127.0.0.1:4242/v1"}})
	for _, want := range []string{
		`model = "gpt-5.5"`,
		`model_provider = "fake"`,
		`approval_policy = "never"`,
		`sandbox_mode = "danger-full-access"`,
		`base_url = "http://127.0.0.1:4242/v1"`,
		`wire_api = "responses"`,
		"request_max_retries = 0",
		"stream_max_retries = 0",
		`[projects."/tmp/a \"quoted\" dir\\x"]`,
		`trust_level = "trusted"`,
		"daemon_auto_start = false",
		`"gpt-5.5" = "gpt-6-sol"`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %s:\n%s", want, cfg)
		}
	}
	if strings.Contains(cfg, "show_tooltips") {
		t.Error("tips hidden without HideTips")
	}
	if !strings.Contains(Config(Options{HideTips: true}), "show_tooltips = false") {
		t.Error("HideTips does not hide tips")
	}
}

func TestTOMLStringEscapesControlCharacters(t *testing.T) {
	if got := tomlString("a\tb\x01"); got != `"a\u0009b\u0001"` {
		t.Fatalf("got %s", got)
	}
}

func TestSubmittedAndSpinning(t *testing.T) {
	for _, tc := range []struct {
		text, title string
		want        bool
	}{
		{"› Ask Codex to do anything\n  GPT-5.5 default · /w", "work", true},
		{"› my prompt\n  GPT-5.5 default · /w", "work", false},
		{"› my prompt\n  GPT-5.5 default · /w", "⠴ work", true},
		{"\x1b[1m›\x1b[0m Ask Codex to do anything", "work", true},
	} {
		if got := Submitted(tc.text, tc.title); got != tc.want {
			t.Errorf("Submitted(%q, %q) = %v", tc.text, tc.title, got)
		}
	}
	if Spinning("[ ! ] Action Required | work") || Spinning("") {
		t.Error("not a spinner")
	}
}
