package realcline

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

func TestLaunchPointsClineAtTheFakeModelWithAHubOfItsOwn(t *testing.T) {
	opts := Options{Common: realcli.Common{Home: "/h", BaseURL: "http://127.0.0.1:1/v1"}}
	env := Env(opts, 4242)
	for _, want := range []string{"HOME=/h", "CLINE_HUB_PORT=4242", "CLINE_DISABLE_CLINE_PASS_NOTICE=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("env %q lacks %s", env, want)
		}
	}
	if slices.Contains(Env(Options{Notice: true}, 1), "CLINE_DISABLE_CLINE_PASS_NOTICE=1") {
		t.Error("Notice: the notice is still turned off")
	}
	if got := Args(Options{Ask: true}); !slices.Equal(got, []string{"--auto-approve", "false"}) {
		t.Errorf("asking args %q", got)
	}
	p := Providers(opts)["providers"].(map[string]any)["openai-compatible"].(map[string]any)
	if s := p["settings"].(map[string]any); s["baseUrl"] != opts.BaseURL || s["apiKey"] != realcli.OpenAIKey || s["model"] != realcli.Model || p["updatedAt"] == nil {
		t.Errorf("provider %v", p)
	}
	files := Files(Options{Hooks: map[string]string{"agent_end": "echo done"}})
	if got := string(files[filepath.Join(".cline", "hooks", "TaskComplete.sh")]); got != "#!/bin/sh\necho done\n" {
		t.Errorf("hook files %q", files)
	}
}
