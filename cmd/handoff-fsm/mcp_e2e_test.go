package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/handoff-fsm/handoff-fsm/internal/mcptest"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// mcpSession runs `handoff-fsm mcp args…` (this test binary as the
// command) over pipes and connects an MCP client to it; progress keeps
// the progress messages. Both end with the test.
func mcpSession(t *testing.T, progress *mcptest.Progress, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := cliCmd(ctx, append([]string{"mcp"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := progress.Client("test").Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to handoff-fsm mcp: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		if t.Failed() {
			t.Logf("handoff-fsm mcp stderr:\n%s", stderr.String())
		}
	})
	return cs
}

// waitProgress is the progress messages, joined, once the last one says
// last (mcptest.Progress.Until).
func waitProgress(progress *mcptest.Progress, last string) string {
	return strings.Join(progress.Until(last), "\n")
}

// The built command over stdio: tools/list, then a handoff to a simulated
// agent in real tmux whose answer comes back as the tool result, with the
// transitions as progress; the dispatch is kept in --state-dir.
func TestMCPCommandOverStdio(t *testing.T) {
	t.Parallel()
	a := startAgent(t, "--echo", "--startup", "300ms", "--work", "500ms")
	state := t.TempDir()
	var progress mcptest.Progress
	// --provider auto: the simulated agent draws Codex's screens, so the
	// dispatch is read, and kept, as codex.
	cs := mcpSession(t, &progress, "--socket", a.srv.Socket, "--workdir", a.workdir, "--state-dir", state,
		"--poll", "250ms", "--idle-grace", "5s", "--timeout", "2m", "--provider", "auto")
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "assign,dispatch_status,handoff,list_panes,wait_any" {
		t.Fatalf("tools %v", names)
	}
	p := &mcp.CallToolParams{Name: "handoff", Arguments: map[string]any{"target": a.pane.Target(), "role": "analyst",
		"prompt": "Summarise the design"}}
	p.SetProgressToken("t1")
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || mcptest.Text(res) != "Summarise the design\n" {
		t.Fatalf("handoff: error %v, %q", res.IsError, mcptest.Text(res))
	}
	if joined := waitProgress(&progress, "finished: done"); !strings.Contains(joined, "→ Working") || !strings.Contains(joined, "→ Done") {
		t.Fatalf("progress:\n%s", joined)
	}
	views, bad, err := serve.History(state, serve.Filter{})
	if err != nil || bad != 0 || len(views) != 1 || views[0].Outcome != "done" || views[0].Role != "analyst" || views[0].Provider != "codex" {
		t.Fatalf("history of --state-dir: %+v %d %v", views, bad, err)
	}
}

// --server: the tools dispatch through a running service (handoff-fsm
// serve); the dispatch is the service's.
func TestMCPCommandThroughAService(t *testing.T) {
	t.Parallel()
	a := startAgent(t, "--echo", "--startup", "300ms", "--work", "500ms")
	dir, sock := serveDirs(t)
	svc := startServe(t, dir, sock)
	var progress mcptest.Progress
	cs := mcpSession(t, &progress, "--server", "unix:"+svc.sock, "--socket", a.srv.Socket,
		"--workdir", a.workdir, "--poll", "250ms", "--idle-grace", "5s")
	p := &mcp.CallToolParams{Name: "handoff", Arguments: map[string]any{"target": a.pane.Target(), "role": "tester", "prompt": "run the tests"}}
	p.SetProgressToken(7)
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || mcptest.Text(res) != "run the tests\n" {
		t.Fatalf("handoff: error %v, %q", res.IsError, mcptest.Text(res))
	}
	if l, err := svc.client.List(context.Background(), nil); err != nil || len(l) != 1 || l[0].Outcome != "done" || l[0].Role != "tester" {
		t.Fatalf("the service's dispatches: %+v %v", l, err)
	}
	if joined := waitProgress(&progress, "finished: done"); !strings.Contains(joined, "→ Done") {
		t.Fatalf("progress through the service:\n%s", joined)
	}
}

// install writes each CLI's configuration, keeps what else the file held,
// changes nothing when run again, and backs up a file it changes.
func TestInstallWritesEachCLIsConfigurationIdempotently(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("COPILOT_HOME", "")
	t.Setenv("KIMI_CODE_HOME", "")
	t.Setenv("PI_CODING_AGENT_DIR", "")
	bin := "/opt/handoff fsm/bin/handoff-fsm"
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"theme":"Dark","mcpServers":{"other":{"command":"x"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte("model = \"gpt-5.5\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cli := range []string{"claude", "codex", "copilot", "droid", "gemini", "kilo", "kimi", "omp"} {
		out, errOut, code := runInstallHere(t, cli, "--bin", bin)
		if code != 0 {
			t.Fatalf("install %s: exit %d: %s", cli, code, errOut)
		}
		again, _, code := runInstallHere(t, cli, "--bin", bin)
		if code != 0 || strings.Contains(again, "written") || strings.Contains(again, "updated") {
			t.Fatalf("install %s a second time changed something:\n%s\n(first: %s)", cli, again, out)
		}
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(home, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if s := read(".claude.json"); !strings.Contains(s, `"command": "/opt/handoff fsm/bin/handoff-fsm"`) || !strings.Contains(s, `"handoff"`) {
		t.Errorf(".claude.json:\n%s", s)
	}
	if s := read(".gemini/settings.json"); !strings.Contains(s, `"theme": "Dark"`) || !strings.Contains(s, `"other"`) || !strings.Contains(s, `"timeout": 3600000`) {
		t.Errorf("settings.json lost a key or lacks the server:\n%s", s)
	}
	if s := read(".factory/mcp.json"); !strings.Contains(s, `"command": "/opt/handoff fsm/bin/handoff-fsm"`) || !strings.Contains(s, `"type": "stdio"`) {
		t.Errorf(".factory/mcp.json:\n%s", s)
	}
	if s := read(".kimi-code/mcp.json"); !strings.Contains(s, `"transport": "stdio"`) || !strings.Contains(s, `"command": "/opt/handoff fsm/bin/handoff-fsm"`) {
		t.Errorf("kimi's mcp.json:\n%s", s)
	}
	// Kilo Code: OpenCode's form, the command and its arguments one list.
	if s := read(".config/kilo/kilo.json"); !strings.Contains(s, `"mcp": {`) || !strings.Contains(s, `"type": "local"`) ||
		!strings.Contains(s, "\"command\": [\n        \"/opt/handoff fsm/bin/handoff-fsm\",\n        \"mcp\"\n      ]") {
		t.Errorf("kilo.json:\n%s", s)
	}
	if s := read(".omp/agent/mcp.json"); !strings.Contains(s, `"type": "stdio"`) || !strings.Contains(s, `"command": "/opt/handoff fsm/bin/handoff-fsm"`) || !strings.Contains(s, `"timeout": 3600000`) {
		t.Errorf("OMP's mcp.json:\n%s", s)
	}
	if s := read(".copilot/mcp-config.json"); !strings.Contains(s, `"type": "local"`) || !strings.Contains(s, `"command": "/opt/handoff fsm/bin/handoff-fsm"`) {
		t.Errorf("mcp-config.json:\n%s", s)
	}
	codexCfg := read(".codex/config.toml")
	if !strings.HasPrefix(codexCfg, "model = \"gpt-5.5\"\n") || strings.Count(codexCfg, "[mcp_servers.handoff]") != 1 ||
		!strings.Contains(codexCfg, `command = "/opt/handoff fsm/bin/handoff-fsm"`) || !strings.Contains(codexCfg, "tool_timeout_sec = 3600") {
		t.Errorf("config.toml:\n%s", codexCfg)
	}
	for _, skill := range []string{".claude/skills/handoff-fsm/SKILL.md", ".codex/skills/handoff-fsm/SKILL.md"} {
		if s := read(skill); !strings.Contains(s, "name: handoff-fsm") || !strings.Contains(s, "'/opt/handoff fsm/bin/handoff-fsm' send") {
			t.Errorf("%s:\n%s", skill, s)
		}
	}
	// The two files that held something before were backed up once.
	for _, dir := range []string{".gemini", ".codex"} {
		matches, _ := filepath.Glob(filepath.Join(home, dir, "*.bak-*"))
		if len(matches) != 1 {
			t.Errorf("backups in %s: %v", dir, matches)
		}
	}
	// Another binary: the entry is replaced, not added twice, and the file backed up.
	if out, errOut, code := runInstallHere(t, "codex", "--bin", "/usr/bin/handoff-fsm"); code != 0 || !strings.Contains(out, "updated") {
		t.Fatalf("reinstall codex: %d %s %s", code, out, errOut)
	}
	if s := read(".codex/config.toml"); strings.Count(s, "[mcp_servers.handoff]") != 1 || !strings.Contains(s, `"/usr/bin/handoff-fsm"`) {
		t.Errorf("config.toml after reinstall:\n%s", s)
	}
	// Bad input: a clear error, the file untouched.
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runInstallHere(t, "claude"); code != 1 || !strings.Contains(errOut, "not a JSON object") || read(".claude.json") != "not json" {
		t.Errorf("a broken .claude.json: exit %d, %s", code, errOut)
	}
	// --scope project writes the project's files; --dry-run writes nothing.
	proj := t.TempDir()
	if out, errOut, code := runInstallHere(t, "gemini", "--scope", "project", "--dir", proj, "--dry-run"); code != 0 || !strings.Contains(out, "would write") {
		t.Fatalf("dry run: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(proj, ".gemini")); !os.IsNotExist(err) {
		t.Fatalf("--dry-run wrote something: %v", err)
	}
	for cli, file := range map[string]string{"claude": ".mcp.json", "codex": ".codex/config.toml", "copilot": ".github/mcp.json", "droid": ".factory/mcp.json", "gemini": ".gemini/settings.json", "kilo": "kilo.json", "kimi": ".kimi-code/mcp.json", "omp": ".omp/mcp.json"} {
		if _, errOut, code := runInstallHere(t, cli, "--scope", "project", "--dir", proj, "--bin", bin, "--skill=false"); code != 0 {
			t.Fatalf("install %s --scope project: %d %s", cli, code, errOut)
		}
		if b, err := os.ReadFile(filepath.Join(proj, file)); err != nil || !strings.Contains(string(b), "handoff fsm/bin/handoff-fsm") {
			t.Errorf("%s: %q %v", file, b, err)
		}
	}
	if _, errOut, code := runInstallHere(t, "vim"); code != 2 || !strings.Contains(errOut, `"vim"`) {
		t.Errorf("unknown CLI: exit %d, %s", code, errOut)
	}
}

func runInstallHere(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb strings.Builder
	code = run(context.Background(), append([]string{"install"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}
