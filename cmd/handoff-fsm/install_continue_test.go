package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// install continue adds handoff to the mcpServers list of Continue's
// config.yaml: the user's models, servers and comments are kept, the old
// file is backed up, a second install changes nothing, a reinstall with
// another binary replaces its own item (never a second one), and a
// project scope, which Continue's CLI does not read, is refused.
func TestInstallContinueAddsItsServerToConfigYAML(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CONTINUE_GLOBAL_DIR", "")
	path := filepath.Join(home, ".continue", "config.yaml")
	mine := `# my Continue config
name: mine
version: 1.0.0
schema: v1
models:
  - name: local # the one I use
    provider: ollama
    model: qwen
mcpServers:
  - name: other
    command: other-server
`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := "/opt/handoff fsm/bin/handoff-fsm"
	out, errOut, code := runInstallHere(t, "continue", "--bin", bin)
	if code != 0 || !strings.Contains(out, "updated: "+path) {
		t.Fatalf("install continue: exit %d: %s %s", code, out, errOut)
	}
	backups, _ := filepath.Glob(path + ".bak-*")
	if len(backups) != 1 {
		t.Fatalf("backups %q, want one", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != mine {
		t.Errorf("the backup holds %q, want the user's file as it was", b)
	}
	if again, _, code := runInstallHere(t, "continue", "--bin", bin); code != 0 || !strings.Contains(again, "unchanged") {
		t.Fatalf("install continue a second time: %d %s", code, again)
	}
	if _, _, code := runInstallHere(t, "continue", "--bin", "/usr/bin/handoff-fsm", "--server", "127.0.0.1:7777"); code != 0 {
		t.Fatalf("install continue with another binary: exit %d", code)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# my Continue config", "# the one I use", "provider: ollama"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config.yaml lost %q:\n%s", want, b)
		}
	}
	var cfg struct {
		Name       string
		Models     []map[string]any
		MCPServers []struct {
			Name, Type, Command string
			Args                []string
		} `yaml:"mcpServers"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("config.yaml no longer reads as YAML: %v\n%s", err, b)
	}
	if cfg.Name != "mine" || len(cfg.Models) != 1 || len(cfg.MCPServers) != 2 || cfg.MCPServers[0].Name != "other" {
		t.Fatalf("config.yaml reads as %+v, want the user's model and server, then handoff's:\n%s", cfg, b)
	}
	if s := cfg.MCPServers[1]; s.Name != "handoff" || s.Type != "stdio" || s.Command != "/usr/bin/handoff-fsm" ||
		strings.Join(s.Args, " ") != "mcp --server 127.0.0.1:7777" {
		t.Errorf("handoff's server reads as %+v", s)
	}
	if _, errOut, code := runInstallHere(t, "continue", "--scope", "project"); code != 2 || !strings.Contains(errOut, "--scope user") {
		t.Errorf("--scope project: exit %d, %s", code, errOut)
	}
}

// Without a config.yaml Continue uses its hub's configuration: install
// refuses to write one that would replace it (exit 1, saying why) and
// writes nothing; a config.yaml that is not a mapping, or whose mcpServers
// is not a list, is left as it is, with an error naming the file.
func TestInstallContinueLeavesWhatItCannotEdit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, "elsewhere")
	t.Setenv("CONTINUE_GLOBAL_DIR", dir)
	path := filepath.Join(dir, "config.yaml")
	if _, errOut, code := runInstallHere(t, "continue"); code != 1 || !strings.Contains(errOut, path+" does not exist") {
		t.Errorf("no config.yaml: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("install wrote %s (%v)", path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"- a list\n", "name: x\nmcpServers: handoff\n", "name: [unclosed\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runInstallHere(t, "continue")
		if b, _ := os.ReadFile(path); code != 1 || !strings.Contains(errOut, path) || string(b) != bad {
			t.Errorf("config.yaml %q: exit %d, %s; the file now %q", bad, code, errOut, b)
		}
	}
	// "mcpServers:" with nothing under it takes the list.
	if err := os.WriteFile(path, []byte("name: x\nmcpServers:\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runInstallHere(t, "continue", "--bin", "/bin/h"); code != 0 {
		t.Fatalf("an empty mcpServers: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "mcpServers:\n  - name: handoff\n") {
		t.Errorf("config.yaml:\n%s", b)
	}
}
