package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cont "github.com/handoff-fsm/handoff-fsm/continue"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcontinue"
)

// Continue in a team: it has no hook that fires (its screen decides), and
// `cn --resume` takes the newest session of its global folder, whichever
// folder and agent it came from. So up gives each agent a global folder
// of its own (the user's entries linked in, sessions/ its own). Two
// agents of one user (one HOME, whose ~/.continue/config.yaml names the
// model, no --config) each answer a prompt; both die; up restarts each
// with --resume; the next prompt of each reaches the model after that
// agent's own earlier prompt, never after the other's (with one folder,
// both would go on with the reviewer's, the newest). down leaves no
// process behind.
func TestRealTeamResumeOfContinue(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{{role: "analyst", provider: "continue", home: "user"}, {role: "reviewer", provider: "continue", home: "user"}})
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	tm.up(ctx, t, `analyst +%\d+ +continue .* started .*none \(continue has no command hook\)`, `reviewer +%\d+ +continue .* started `)
	prompt := func(role string, n int) string {
		return map[int]string{1: "Say hello as the ", 2: "Say hello again as the "}[n] + role + "."
	}
	send := func(role string, n int) {
		t.Helper()
		answer := "Hello " + map[int]string{1: "", 2: "again "}[n] + "from the " + role + "."
		tm.models[role].Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Done."))
		panes := paneIDs(ctx, t, tm.srv)
		out, errs, code := handoffCLI(ctx, tm.exe, tm.work, "send", "--socket", tm.srv.Socket, "--target", panes[role], "--provider", "continue",
			"--role", role, "--workdir", tm.work, "--poll", "250ms", "--idle-grace", realcontinue.CLI.DispatchGrace().String(), "--timeout", "4m",
			"--prompt", prompt(role, n))
		if code != 0 || strings.TrimSpace(out) != answer {
			t.Fatalf("send %q to the %s: exit %d, stdout %q\n%s", prompt(role, n), role, code, out, errs)
		}
		// The answer is read from its file before the turn ends: the
		// turn's last request (the file's tool result) takes "Done." a
		// moment later. The agents share one model: the next step waits
		// for it, so the next prompt takes its own replies.
		for deadline := time.Now().Add(2 * time.Minute); tm.models[role].Pending() > 0; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the %s's turn did not end within 2 minutes of its answer", role)
			}
		}
	}
	send("analyst", 1)
	send("reviewer", 1)
	// Continue writes a session's file on its own time after the turn: at
	// three tests at once beside two burners the reviewer was killed
	// before its file held its turn, and so resumed nothing of it. Each
	// agent dies only once its own file holds its prompt, as an agent that
	// died later would have it.
	for _, role := range []string{"analyst", "reviewer"} {
		waitContinueSession(t, cont.SessionsDir(cont.OwnGlobalDir(tm.filesDir(role))), prompt(role, 1))
	}
	tm.killResume(ctx, t, map[string]string{"analyst": prompt("analyst", 1), "reviewer": prompt("reviewer", 1)}, 2*time.Minute, nil)
	for _, role := range []string{"analyst", "reviewer"} {
		send(role, 2)
		other := map[string]string{"analyst": "reviewer", "reviewer": "analyst"}[role]
		var got []string
		for _, r := range tm.models[role].Requests() {
			if strings.Contains(r.Prompt(), prompt(role, 2)) {
				got = r.UserTexts
				break
			}
		}
		history := strings.Join(got, "\n")
		if !strings.Contains(history, prompt(role, 1)) || strings.Contains(history, prompt(other, 1)) {
			t.Errorf("the resumed %s's next request holds the user messages %q: want its own earlier prompt %q, not the %s's",
				role, got, prompt(role, 1), other)
		}
	}
	tm.downLeavesNothing(ctx, t)
}

// waitContinueSession waits up to 2 minutes for a session file in dir
// (an agent's Continue sessions folder) that holds prompt.
func waitContinueSession(t *testing.T, dir, prompt string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), prompt) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session file in %s holds %q after 2 minutes (files: %v)", dir, prompt, paths)
		}
	}
}

// `install continue` adds handoff to the user's config.yaml where the
// real Continue reads it: a headless `cn -p` of that user (no --config)
// starts handoff-fsm mcp, offers its tools to the model, and runs the one
// the model calls (list_panes of a tmux server that is not running): its
// result, handoff's own error naming that server, goes back to the model.
func TestRealContinueReadsInstalledMCPConfig(t *testing.T) {
	parallel(t)
	cli := realcontinue.CLI.Require(t)
	exe := buildCommand(t)
	model, err := fakemodel.Start(context.Background(), fakemodel.ChatCompletions{ShellTool: realcontinue.ShellTool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = model.Close() })
	home, work := t.TempDir(), t.TempDir()
	opts := realcontinue.Options{Common: realcli.Common{Home: home, Workdir: work, BaseURL: model.URL}}
	writeFiles(t, map[string][]byte{filepath.Join(home, realcontinue.ConfigPath): realcontinue.Config(opts),
		filepath.Join(home, realcontinue.OnboardedPath): []byte("2026-01-01T00:00:00.000Z")})
	env := realcontinue.Env(opts)
	install := exec.Command(exe, "install", "continue", "--bin", exe)
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install continue: %v\n%s", err, out)
	}
	socket := "continue-mcp-" + randomHex(t) // no server runs on it
	model.Script(fakemodel.ToolUse("list_panes", map[string]any{"socket": socket}, ""), fakemodel.Answer("Listed."))
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cn := exec.CommandContext(ctx, cli, "-p", "List the panes.", "--auto")
	cn.Env, cn.Dir, cn.WaitDelay = env, work, 10*time.Second
	out, err := cn.CombinedOutput()
	reqs := model.Turns()
	for _, r := range reqs {
		t.Logf("request: %d tools, reply %q, tool results %q", r.Tools, r.Reply, r.ToolResults)
	}
	if err != nil {
		t.Fatalf("cn -p: %v\n%s", err, out)
	}
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"list_panes"`) || !strings.Contains(string(reqs[0].Body), `"assign"`) {
		t.Fatalf("Continue's first request does not offer handoff's tools (list_panes, assign):\n%s\n%s", reqs[0].Body, out)
	}
	if got := strings.Join(reqs[1].ToolResults, "\n"); !strings.Contains(got, socket) {
		t.Errorf("the list_panes result sent back does not come from handoff-fsm mcp (it names no socket %s): %q", socket, got)
	}
}
