package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// The supervisor case of handoff-fsm mcp, with real CLIs on both ends: the
// real Claude Code runs with the MCP configuration `handoff-fsm install
// claude` writes (naming the built binary's `mcp`); its fake Messages API
// makes it call the tool mcp__handoff__handoff with a pane running the
// real Codex; Codex, on its own fake Responses API, writes the response
// file; and the tool result Claude Code sends back to its API is Codex's
// answer, byte for byte. The fake servers decide every step, so nothing
// rests on timing.
func TestRealClaudeHandsOffToRealCodexThroughMCP(t *testing.T) {
	parallel(t)
	realcodex.CLI.Require(t)
	realclaude.CLI.Require(t)
	tmp := t.TempDir()
	bin := buildCommand(t)
	cfgDir := filepath.Join(tmp, "mcp-config")
	if out, err := exec.Command(bin, "install", "claude", "--scope", "project", "--dir", cfgDir, "--bin", bin, "--skill=false").CombinedOutput(); err != nil {
		t.Fatalf("handoff-fsm install claude: %v\n%s", err, out)
	}

	// The server's log goes to a file too (Claude Code keeps an MCP
	// server's stderr to itself): one flag added to what install wrote.
	logPath := filepath.Join(tmp, "mcp.log")
	addMCPArgs(t, filepath.Join(cfgDir, ".mcp.json"), "--log-file", logPath)

	cx := newRig(t, realcodex.Options{HideTips: true})
	answer := "Codex: added --verbose to main.go.\nIt prints each step; `go test` passes with $HOME set and a \\ too."
	// Codex's model takes a few seconds to answer: the supervisor's screen
	// is looked at while the worker works.
	cx.model.Script(fakemodel.WriteResponse(answer).In(cx.workdir).After(6*time.Second), fakemodel.Answer("Response written."))

	var env []string
	if d := os.Getenv("TMUX_TMPDIR"); d != "" {
		env = append(env, "TMUX_TMPDIR="+d) // the MCP server must find Codex's tmux server
	}
	// --mcp-config takes every argument after it: it comes last.
	cl := newClaudeRigAt(t, realclaude.Options{ExtraEnv: env,
		ExtraArgs: []string{"--strict-mcp-config", "--mcp-config", filepath.Join(cfgDir, ".mcp.json")}}, t.TempDir())
	call := map[string]any{"target": cx.cli.Target, "socket": cx.cli.Socket, "provider": "codex", "role": "programmer",
		"workdir": cx.workdir, "prompt": "Add a --verbose flag to main.go."}
	// Claude Code defers MCP tools behind its ToolSearch tool: the model
	// loads the tool first, as a real one does, then calls it.
	cl.model.Script(fakemodel.ToolUse("ToolSearch", map[string]any{"query": "select:mcp__handoff__handoff", "max_results": 1}, ""),
		fakemodel.ToolUse("mcp__handoff__handoff", call, "Handing this to Codex."),
		fakemodel.Answer("Codex has done it."))
	cl.submit("Ask the Codex agent to add a --verbose flag.")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := cl.model.WaitTurns(ctx, 2); err != nil {
		cl.fail("Claude Code's call of the handoff tool: %v", err)
	}
	// While Codex works: what Claude Code shows of the tool call.
	var during []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && len(cl.model.Turns()) < 3; time.Sleep(500 * time.Millisecond) {
		plain, _, _ := cl.cli.CapturePlain(ctx)
		if i := strings.Index(plain, "Handing this to Codex."); i >= 0 {
			during = append(during, strings.TrimSpace(plain[i:min(len(plain), i+400)]))
		}
	}
	if err := cl.model.WaitTurns(ctx, 3); err != nil {
		cl.fail("Claude Code's second turn request (with the tool result): %v\ncodex requests: %d", err, len(cx.model.Turns()))
	}
	turns := cl.model.Turns()
	// The tool is offered once ToolSearch has loaded it, with the schema
	// handoff-fsm mcp declares.
	if names := toolNames(t, turns[1].Body); !slices.Contains(names, "mcp__handoff__handoff") {
		t.Fatalf("after ToolSearch, Claude Code offered %v, not mcp__handoff__handoff", names)
	}
	if !strings.Contains(string(turns[1].Body), `"required":["target","role","prompt"]`) {
		t.Errorf("the handoff tool's schema as Claude Code sent it lacks the required arguments: %s", tail(string(turns[1].Body), 1500))
	}
	got := turns[2].ToolResults
	if len(got) != 1 || got[0] != answer+"\n" {
		t.Fatalf("the tool result Claude Code sent back:\n%q\nwant Codex's answer:\n%q", got, answer+"\n")
	}
	// Codex got the prompt from the tool call, with the instruction.
	if ct := cx.model.Turns(); len(ct) == 0 || !strings.Contains(ct[0].Prompt(), "Add a --verbose flag to main.go.") {
		t.Fatalf("Codex's requests: %+v", ct)
	}
	cl.waitScreen(time.Minute, "Claude Code's final answer", func(plain, _ string) bool { return claudeFinished(plain, "Codex has done it.") })
	log, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(log), "handoff: dispatch accepted") {
		t.Fatalf("the MCP server's log %s: %v\n%s", logPath, err, log)
	}
	t.Logf("Claude Code asked for progress notifications: %v", strings.Contains(string(log), "progress_token=true"))
	if out := os.Getenv("HANDOFF_MCP_TRANSCRIPT"); out != "" {
		writeTranscript(t, out, cl, cx, string(log), during)
	}

	// The dispatch is an ordinary one, kept in the MCP server's state
	// folder (under Claude Code's HOME): done, exit 0, the file archived.
	dirs, _ := filepath.Glob(filepath.Join(cl.cli.Home, ".local", "state", "handoff-fsm", "mcp", "*"))
	if len(dirs) != 1 {
		t.Fatalf("the MCP server's state folders: %v", dirs)
	}
	views, bad, err := serve.History(dirs[0], serve.Filter{})
	if err != nil || bad != 0 || len(views) != 1 || views[0].Outcome != "done" || *views[0].Exit != 0 || views[0].Role != "programmer" {
		t.Fatalf("the MCP server's dispatches: %+v (%d unreadable, %v)", views, bad, err)
	}
	if b, err := os.ReadFile(views[0].ArchivedPath); err != nil || !strings.HasSuffix(string(b), answer+"\n") {
		t.Fatalf("archive %s: %q %v", views[0].ArchivedPath, b, err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// toolNames are the names of the tools a Messages request offers.
func toolNames(t *testing.T, body []byte) []string {
	t.Helper()
	var b struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range b.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// addMCPArgs appends args to the handoff server's arguments in a Claude
// Code MCP configuration file.
func addMCPArgs(t *testing.T, path string, args ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	h := cfg.MCPServers["handoff"]
	old, _ := h["args"].([]any)
	for _, a := range args {
		old = append(old, a)
	}
	h["args"] = old
	b, err = json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTranscript writes what each side saw, for docs/mcp.md: the requests
// Claude Code's fake API received (the tool calls it answered with are the
// script), the MCP server's log, Codex's requests, and Claude Code's screen.
func writeTranscript(t *testing.T, path string, cl, cx *rig, log string, during []string) {
	t.Helper()
	var b strings.Builder
	for i, d := range during {
		fmt.Fprintf(&b, "== Claude Code's pane while Codex works, look %d\n%s\n", i, d)
	}
	for i, r := range cl.model.Turns() {
		fmt.Fprintf(&b, "== Claude Code -> its fake Messages API, turn request %d (%d tools offered, reply %q)\n", i, r.Tools, r.Reply)
		fmt.Fprintf(&b, "   tools: %v\n   last user text: %q\n   tool results: %q\n", toolNames(t, r.Body), tail(r.UserText, 300), r.ToolResults)
	}
	for i, r := range cx.model.Turns() {
		fmt.Fprintf(&b, "== Codex -> its fake Responses API, turn request %d (reply %q)\n   prompt: %q\n   tool results: %q\n", i, r.Reply, r.Prompt(), r.ToolResults)
	}
	fmt.Fprintf(&b, "== handoff-fsm mcp log\n%s", log)
	screen, _, _ := cl.cli.CapturePlain(context.Background())
	fmt.Fprintf(&b, "== Claude Code's pane at the end\n%s\n", strings.TrimRight(screen, "\n "))
	cxScreen, _, _ := cx.cli.CapturePlain(context.Background())
	fmt.Fprintf(&b, "== Codex's pane at the end\n%s\n", strings.TrimRight(cxScreen, "\n "))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
