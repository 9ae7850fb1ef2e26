package e2e

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
	needCodex(t)
	needClaude(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "handoff-fsm")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/handoff-fsm").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfgDir := filepath.Join(tmp, "mcp-config")
	if out, err := exec.Command(bin, "install", "claude", "--scope", "project", "--dir", cfgDir, "--bin", bin, "--skill=false").CombinedOutput(); err != nil {
		t.Fatalf("handoff-fsm install claude: %v\n%s", err, out)
	}

	cx := newRig(t, realcodex.Options{HideTips: true})
	answer := "Codex: added --verbose to main.go.\nIt prints each step; `go test` passes with $HOME set and a \\ too."
	cx.model.Script(fakemodel.WriteResponse(answer).In(cx.workdir), fakemodel.Answer("Response written."))

	var env []string
	if d := os.Getenv("TMUX_TMPDIR"); d != "" {
		env = append(env, "TMUX_TMPDIR="+d) // the MCP server must find Codex's tmux server
	}
	// --mcp-config takes every argument after it: it comes last.
	cl := newClaudeRig(t, realclaude.Options{ExtraEnv: env,
		ExtraArgs: []string{"--strict-mcp-config", "--mcp-config", filepath.Join(cfgDir, ".mcp.json")}})
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
