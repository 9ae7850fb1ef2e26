package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/provider"
)

func TestProvidersListsEveryProviderWithItsVersion(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"providers", "--json"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got []struct{ Name, CLI, Version, Hook string }
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	names := provider.Names()
	if len(got) != len(names) || len(got) < 3 {
		t.Fatalf("%d providers listed, registry has %v", len(got), names)
	}
	for i, p := range got {
		if p.Name != names[i] || p.CLI == "" || p.Version == "" { // Hook may be "": none proven
			t.Errorf("entry %d: %+v", i, p)
		}
	}

	stdout.Reset()
	if code := run(context.Background(), []string{"providers"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"NAME", "gemini", "@google/gemini-cli", "0.61.0", "AfterAgent", "claude", "codex"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}
	if code := run(context.Background(), []string{"providers", "extra"}, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
		t.Errorf("an argument: exit %d, want %d", code, exitUsage)
	}
}
