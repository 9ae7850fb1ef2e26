package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/copilot"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcopilot"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// Copilot CLI's agentStop hook, given to it for the run as `up` gives it
// (Provider().Launch.Hook: a plug-in folder and --plugin-dir), fires in
// this offline setup when a turn ends, and the wait decides on its marker.
// The hook's input carries the session, not the last message.
func TestRealCopilotAgentStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realcopilot.CLI.Require(t)
	bin := buildCommand(t)
	events := t.TempDir()
	wiring := copilot.Provider().Launch.Hook(t.TempDir(), []string{bin, "hook", "--dir", events})
	writeFiles(t, wiring.Files)
	r := newCopilotRigAt(t, realcopilot.Options{Args: wiring.Args}, t.TempDir())
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))
	r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	stopped, ok, err := hookmark.Read(events, hookmark.Stopped)
	if err != nil || !ok || stopped.Hook != copilot.Hook || stopped.Session == "" || stopped.Cwd != r.workdir {
		t.Fatalf("stop marker %+v, %v, %v", stopped, ok, err)
	}
}

// writeFiles writes a hook wiring's files (absolute paths).
func writeFiles(t *testing.T, files map[string][]byte) {
	t.Helper()
	for path, b := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// `up` starts Copilot CLI with its agentStop hook wired for the run (a
// plug-in folder given with --plugin-dir), `send --hook-dir` gets the
// answer and the hook's marker; after its process is killed, `up`
// restarts it with --continue and it shows its conversation again.
func TestRealTeamHookAndResumeOfCopilot(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{{role: "analyst", provider: "copilot"}})
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	tm.up(ctx, t, `analyst +%\d+ +copilot .* started .*--plugin-dir`)
	panes := paneIDs(ctx, t, tm.srv)
	events := filepath.Join(tm.work, ".tmp", "agent-events", "analyst")
	tm.models["analyst"].Script(fakemodel.WriteResponse("Hello from the analyst."), fakemodel.Answer("Done."))
	out, errs, code := handoffCLI(ctx, tm.exe, tm.work, "send", "--socket", tm.srv.Socket, "--target", panes["analyst"], "--provider", "copilot",
		"--role", "analyst", "--workdir", tm.work, "--poll", "250ms", "--idle-grace", "8s", "--timeout", "3m",
		"--hook-dir", events, "--prompt", "Say hello as the analyst.")
	if code != 0 || strings.TrimSpace(out) != "Hello from the analyst." {
		t.Fatalf("send: exit %d, stdout %q\n%s", code, out, errs)
	}
	if m, ok, err := hookmark.Read(events, hookmark.Stopped); !ok || err != nil || m.Hook != copilot.Hook {
		t.Errorf("no agentStop marker of Copilot CLI's hook: %+v, %v", m, err)
	}
	// A crash resumes only what Copilot CLI saved: the kill waits for the
	// turn in its session file, which it writes after the turn, not at once.
	testkit.WaitFor(t, "Copilot CLI's session file holding the prompt", func() bool {
		return realcopilot.SessionSaved(tm.home("analyst"), "Say hello as the analyst")
	})
	tm.killResumeDown(ctx, t, map[string]string{"analyst": "Say hello as the analyst"}, 90*time.Second, nil)
}

// `install copilot` writes an MCP configuration the real Copilot CLI
// reads: `copilot mcp list` shows the handoff server among the user's
// servers (--scope user) and the workspace's (--scope project; Copilot CLI
// reads a folder's MCP servers only once the folder is trusted).
func TestRealCopilotReadsInstalledMCPConfig(t *testing.T) {
	parallel(t)
	cli := realcopilot.CLI.Require(t)
	exe := buildCommand(t)
	home, proj := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "COPILOT_HOME=", "XDG_CACHE_HOME="+realcopilot.CacheHome(), "COPILOT_AUTO_UPDATE=false")
	writeFiles(t, map[string][]byte{filepath.Join(home, ".copilot", "config.json"): []byte(`{"trustedFolders": [` + strconv.Quote(proj) + `]}`)})
	// A workspace's server hides the user's of the same name: each scope
	// is listed right after its install.
	for _, c := range [][2]string{{"user", `User servers:\s+handoff \(local\)`}, {"project", `Workspace servers:\s+handoff \(local\)`}} {
		scope, shown := c[0], c[1]
		cmd := exec.Command(exe, "install", "copilot", "--scope", scope, "--dir", proj, "--bin", exe)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("install copilot --scope %s: %v\n%s", scope, err, out)
		}
		cmd = exec.Command(cli, "mcp", "list")
		cmd.Env, cmd.Dir = env, proj
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("copilot mcp list: %v\n%s", err, out)
		}
		if !regexp.MustCompile(shown).Match(out) {
			t.Fatalf("after install copilot --scope %s, copilot mcp list does not show the handoff server:\n%s", scope, out)
		}
	}
}
