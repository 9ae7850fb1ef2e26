package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// install cline writes the entry `cline mcp add NAME --yes -- CMD ARGS`
// writes (a stdio transport) into Cline's MCP settings, keeps the servers
// already there, changes nothing the second time, and refuses a project
// scope, which Cline does not have.
func TestInstallClineWritesItsMCPSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := filepath.Join(home, ".cline", "data", "settings", "cline_mcp_settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers":{"other":{"transport":{"type":"stdio","command":"x"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := "/opt/handoff fsm/bin/handoff-fsm"
	if out, errOut, code := runInstallHere(t, "cline", "--bin", bin); code != 0 || !strings.Contains(out, "updated") {
		t.Fatalf("install cline: exit %d: %s %s", code, out, errOut)
	}
	if again, _, code := runInstallHere(t, "cline", "--bin", bin); code != 0 || !strings.Contains(again, "unchanged") {
		t.Fatalf("install cline a second time: %d %s", code, again)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"other"`, `"handoff": {`, `"transport": {`, `"type": "stdio"`, `"command": "/opt/handoff fsm/bin/handoff-fsm"`, `"mcp"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("cline_mcp_settings.json lacks %s:\n%s", want, b)
		}
	}
	if _, errOut, code := runInstallHere(t, "cline", "--scope", "project"); code != 2 || !strings.Contains(errOut, "--scope user") {
		t.Errorf("--scope project: exit %d, %s", code, errOut)
	}
}
