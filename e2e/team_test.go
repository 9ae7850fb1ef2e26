package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/realcontinue"
	"github.com/handoff-fsm/handoff-fsm/internal/realcopilot"
	"github.com/handoff-fsm/handoff-fsm/internal/realdroid"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
	"github.com/handoff-fsm/handoff-fsm/internal/realkilo"
	"github.com/handoff-fsm/handoff-fsm/internal/realkimi"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/internal/realpi"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/team"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// A team of real CLIs brought up, run and ended by the command, as a user
// does it: `up` starts Codex (analyst, programmer_review), Gemini CLI
// (analyst_review) and Claude Code (programmer, tester), each against its
// own fake model server, with its turn-end hook wired for the run; `run`
// goes through the loop, the programmer's reviewer sending the work back
// once. The programmer is killed while the dispatch of its revision waits
// (its model holds the reply): run ends with a terminal error naming it,
// status --team shows it exited, `up` restarts it with Claude Code's
// --continue (its next request holds the conversation before the kill)
// and leaves the others alone, and the same `run` goes on from the journal
// to the tester's report. Every agent's hook wrote its Stop marker. Codex
// and Gemini CLI, killed too, are restarted with their resume arguments.
// `down` leaves no process of any agent behind, and what the agents wrote
// stays.
func TestRealTeamUpRunDown(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{
		{role: "analyst", provider: "codex"},
		{role: "analyst_review", provider: "gemini"},
		{role: "programmer", provider: "claude"},
		{role: "programmer_review", provider: "codex"},
		{role: "tester", provider: "claude"},
	})
	exe, work, file, srv, byRole := tm.exe, tm.work, tm.file, tm.srv, tm.models

	wd := work
	byRole["analyst"].Script(
		fakemodel.WriteResponse("Plan: add a --verbose flag to main.go.").In(wd), fakemodel.Answer("Plan written."))
	byRole["analyst_review"].Script(
		fakemodel.WriteResponse("APPROVED: a clear plan."), fakemodel.Answer("Review written."))
	// The programmer's revision is held until the test kills it; the
	// restarted programmer gets the prompt again and answers.
	byRole["programmer"].Script(
		fakemodel.WriteResponse("Changed main.go: --verbose prints each step."), fakemodel.Answer("Done."),
		fakemodel.Answer("never sent").After(time.Hour),
		fakemodel.WriteResponse("Changed main.go: --verbose prints each step; TestVerbose covers it."), fakemodel.Answer("Done."))
	byRole["programmer_review"].Script(
		fakemodel.WriteResponse("CHANGES REQUESTED: add a test for --verbose.").In(wd), fakemodel.Answer("Review written."),
		fakemodel.WriteResponse("APPROVED: the change follows the plan and is tested.").In(wd), fakemodel.Answer("Review written."))
	byRole["tester"].Script(
		fakemodel.WriteResponse("PASS: 3 tests."), fakemodel.Answer("Report written."))

	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()

	// up: every agent started, ready, with its version and its hook.
	// Gemini CLI reads the per-run settings file only when root owns it
	// and its folders (its own security rule): as another user, up says
	// the hook is not wired and Gemini CLI's screen decides alone.
	geminiHooked := rootOwnedChain(filepath.Join(userCacheDir(t), "handoff-fsm"))
	geminiHook := `not wired \(below\)`
	if geminiHooked {
		geminiHook = `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`
	}
	out, errs, code := handoffCLI(ctx, exe, work, "up", "-f", file)
	t.Logf("up:\n%s%s", out, errs)
	if code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^analyst +%\d+ +codex +codex-cli ` + regexp.QuoteMeta(realcodex.CLI.Version) + ` +started .*-c notify`),
		regexp.MustCompile(`(?m)^analyst_review +%\d+ +gemini +` + regexp.QuoteMeta(realgemini.CLI.Version) + ` +started .*` + geminiHook),
		regexp.MustCompile(`(?m)^programmer +%\d+ +claude +` + regexp.QuoteMeta(realclaude.CLI.Version) + ` .*started .*--settings`),
		regexp.MustCompile(`(?m)^programmer_review +%\d+ +codex .* started `),
		regexp.MustCompile(`(?m)^tester +%\d+ +claude .* started `),
	} {
		if !want.MatchString(out) {
			t.Errorf("up's table does not match %s", want)
		}
	}

	// run: the programmer review sends the work back, and the programmer
	// dies while the dispatch of its revision waits on it.
	runArgs := []string{"run", "-f", file, "--task", "Add a --verbose flag", "--rounds", "2",
		"--poll", "250ms", "--idle-grace", "8s", "--timeout", "3m"}
	var (
		runOut, runErr string
		runCode        int
		ran            = make(chan struct{})
	)
	go func() {
		defer close(ran)
		runOut, runErr, runCode = handoffCLI(ctx, exe, work, runArgs...)
	}()
	// The kill comes once the revision's prompt reached the programmer's
	// model (its third turn request; the reply is held): the dispatch
	// waits on it, whatever the timing.
	waitCtx, waitCancel := context.WithTimeout(ctx, 8*time.Minute)
	asked := make(chan error, 1)
	go func() { asked <- byRole["programmer"].WaitTurns(waitCtx, 3) }()
	var err error
	select {
	case err = <-asked:
	case <-ran:
		err = errors.New("run ended first")
	}
	waitCancel()
	if err != nil {
		cancel()
		<-ran
		t.Fatalf("the programmer's model never got its prompt: %v\nrun: exit %d, stderr:\n%s", err, runCode, runErr)
	}
	victim := panePIDs(ctx, t, srv)["programmer"]
	if victim <= 0 {
		t.Fatal("no pid for the programmer's pane")
	}
	// The pane's process leads its own group (tmux starts each pane in a
	// session of its own): the whole agent dies, as on a crash.
	if err := syscall.Kill(-victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-ran
	t.Logf("run with the programmer killed: exit %d\n%s", runCode, runErr)
	if runCode != 4 || runOut != "" {
		t.Fatalf("run with a killed programmer: exit %d (want 4, a terminal error), stdout %q\n%s", runCode, runOut, runErr)
	}
	for _, want := range []string{
		"step 2 analyst_review", "step 3 programmer", "step 4 programmer_review", "changes requested",
		"step 5 programmer (pane %", "failed (terminal_error)",
		"agent programmer (pane %", "its process exited", "restart it with handoff-fsm up",
	} {
		if !strings.Contains(runErr, want) {
			t.Errorf("run's stderr does not say %q", want)
		}
	}

	// status --team: the programmer exited, the others run.
	out, errs, code = handoffCLI(ctx, exe, work, "status", "--team", "-f", file)
	t.Logf("status --team:\n%s%s", out, errs)
	if code != 4 || !regexp.MustCompile(`(?m)^programmer +%\d+ +claude +exited`).MatchString(out) || strings.Count(out, " pid ") != 4 {
		t.Errorf("status --team after the kill: exit %d (want 4), want the programmer exited and four pids:\n%s%s", code, out, errs)
	}

	// up again: the programmer restarted in its pane, going on with its
	// session; the others left alone (same processes).
	before := panePIDs(ctx, t, srv)
	restarted := time.Now()
	out, errs, code = handoffCLI(ctx, exe, work, "up", "-f", file)
	t.Logf("up again:\n%s%s", out, errs)
	if code != 0 || !regexp.MustCompile(`(?m)^programmer +%\d+ +claude .* restarted \(resumed\) `).MatchString(out) || strings.Count(out, " running ") != 4 {
		t.Fatalf("up after the kill: exit %d, want the programmer restarted (resumed) and four running:\n%s%s", code, out, errs)
	}
	after := panePIDs(ctx, t, srv)
	for role, pid := range before {
		if role != "programmer" && after[role] != pid {
			t.Errorf("up touched the running %s: pid %d, was %d", role, after[role], pid)
		}
	}
	if after["programmer"] == victim || after["programmer"] <= 0 {
		t.Errorf("the programmer's pid after up is %d (was %d)", after["programmer"], victim)
	}

	// The same run goes on from the journal: the finished steps are read
	// back, the programmer's step is sent again, the round ends.
	runOut, runErr, runCode = handoffCLI(ctx, exe, work, runArgs...)
	t.Logf("run again: exit %d\n%s", runCode, runErr)
	if runCode != 0 || strings.TrimSpace(runOut) != "PASS: 3 tests." {
		t.Fatalf("run after the restart: exit %d, stdout %q\n%s", runCode, runOut, runErr)
	}
	if n := strings.Count(runErr, "done in an earlier run"); n != 4 {
		t.Errorf("run after the restart read back %d steps, want 4", n)
	}
	steps, err := os.ReadFile(filepath.Join(work, ".tmp", "handoff-run", "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var verdicts, archived []string
	for _, line := range strings.Split(strings.TrimSpace(string(steps)), "\n") {
		var s struct{ Role, Verdict, Archived string }
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		verdicts = append(verdicts, s.Role+":"+s.Verdict)
		archived = append(archived, s.Archived)
	}
	want := []string{"analyst:", "analyst_review:approved", "programmer:", "programmer_review:changes requested",
		"programmer:", "programmer_review:approved", "tester:"}
	if !slices.Equal(verdicts, want) {
		t.Errorf("journal steps %v, want %v", verdicts, want)
	}

	// The restarted programmer went on with its session (--continue): its
	// first request holds the first prompt it answered before the kill.
	var resumed bool
	for _, r := range byRole["programmer"].Turns() {
		if r.At.After(restarted) {
			resumed = slices.ContainsFunc(r.UserTexts[:max(len(r.UserTexts)-1, 0)], func(s string) bool {
				return strings.Contains(s, "Implement this plan")
			})
			break
		}
	}
	if !resumed {
		t.Error("the restarted programmer's first request does not hold its earlier conversation: it did not resume its session")
	}

	// Each CLI's hook, wired by up, marked the end of its turns.
	for _, a := range tm.agents {
		if a.provider == "gemini" && !geminiHooked {
			t.Logf("Gemini CLI's hook is not wired here (not root): its marker is not looked for")
			continue
		}
		dir := filepath.Join(work, ".tmp", "agent-events", a.role)
		if _, ok, err := hookmark.Read(dir, hookmark.Stopped); !ok || err != nil {
			t.Errorf("no Stop marker of the %s (%s) in %s: %v", a.role, a.provider, dir, err)
		}
	}

	// Codex and Gemini CLI die between dispatches: up restarts each with
	// its resume arguments (codex resume --last, gemini --resume latest),
	// which it takes (it does not exit: a failed resume would show as a
	// new session).
	pids := panePIDs(ctx, t, srv)
	for _, role := range []string{"analyst", "analyst_review"} {
		if err := syscall.Kill(-pids[role], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		now := panePIDs(ctx, t, srv)
		if _, ok := now["analyst"]; !ok {
			if _, ok := now["analyst_review"]; !ok {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed agents' panes are not dead after 30 s: %v", now)
		}
	}
	out, errs, code = handoffCLI(ctx, exe, work, "up", "-f", file)
	t.Logf("up after Codex and Gemini CLI died:\n%s%s", out, errs)
	if code != 0 || strings.Count(out, " restarted (resumed) ") != 2 || strings.Count(out, " running ") != 3 ||
		!regexp.MustCompile(`(?m)^analyst +%\d+ +codex .* restarted \(resumed\) `).MatchString(out) ||
		!regexp.MustCompile(`(?m)^analyst_review +%\d+ +gemini .* restarted \(resumed\) `).MatchString(out) {
		t.Errorf("up after Codex and Gemini CLI died: exit %d, want both restarted (resumed) and three running:\n%s%s", code, out, errs)
	}

	// down: no process of any agent is left; what they wrote stays.
	procs := teamProcesses(ctx, srv)
	if len(procs) < len(tm.agents) {
		t.Fatalf("found %d processes of the team before down: %v", len(procs), procs)
	}
	out, errs, code = handoffCLI(ctx, exe, work, "down", "-f", file)
	if code != 0 || strings.Count(out, "ended") != len(tm.agents) {
		t.Fatalf("down: exit %d\n%s%s", code, out, errs)
	}
	var alive []string
	for _, pid := range procs {
		if realcli.Alive(pid) {
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			alive = append(alive, fmt.Sprintf("%d %q", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	if len(alive) > 0 {
		t.Errorf("processes of the team outlived down: %v", alive)
	}
	if _, err := srv.Run(ctx, nil, "list-sessions"); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Errorf("the team's tmux server still runs after down (%v)", err)
	}
	for _, f := range append(archived, filepath.Join(work, ".tmp", "handoff-run", "steps.jsonl")) {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("down removed what the agents wrote: %v", err)
		}
	}
}

// teamAgentSpec is one agent of a test's team.
type teamAgentSpec struct {
	role, provider string
	// untrusted leaves Claude Code's work folder untrusted: its trust
	// question shows at start.
	untrusted bool
	// home, when set, names a HOME folder agents share, as agents of one
	// user do, and the fake model its configuration names; by default
	// each agent has a HOME and a model of its own.
	home string
}

// teamSession is the tmux session of every test team (its team file's
// session).
const teamSession = "team"

// testTeam is a team file of real CLIs, each against a fake model of its
// own, on a tmux socket of the test's own.
type testTeam struct {
	exe, work, file string
	srv             tmuxdriver.Server
	agents          []teamAgentSpec
	models          map[string]*fakemodel.Server // by role
}

// filesDir is where up keeps the per-run files of the agent with role.
func (tm *testTeam) filesDir(role string) string {
	return (&team.Team{Socket: tm.srv.Socket, Session: teamSession}).FilesDir(role)
}

// startTeam writes the homes and the team file of agents (the CLIs from
// the install script's cache, each with one fake model server), and ends
// whatever the team runs when the test ends: down, then the tmux server
// and any process of it left (which fails the test), then each Codex
// home's daemon. It starts no agent: the test runs up.
func startTeam(t *testing.T, agents []teamAgentSpec) *testTeam {
	t.Helper()
	apis := map[string]fakemodel.API{"codex": fakemodel.OpenAIResponses{}, "claude": fakemodel.AnthropicMessages{}, "gemini": fakemodel.Gemini{},
		"qwen": fakemodel.ChatCompletions{}, "opencode": fakemodel.ChatCompletions{ShellTool: realopencode.ShellTool},
		"pi": fakemodel.ChatCompletions{ShellTool: realpi.ShellTool}, "droid": fakemodel.ChatCompletions{ShellTool: realdroid.ShellTool, ShellArgs: realdroid.ShellArgs()},
		"copilot": fakemodel.ChatCompletions{ShellTool: realcopilot.ShellTool}, "kimi": fakemodel.ChatCompletions{ShellTool: realkimi.ShellTool},
		"kilo": fakemodel.ChatCompletions{ShellTool: realkilo.ShellTool}, "continue": fakemodel.ChatCompletions{ShellTool: realcontinue.ShellTool}}
	finds := map[string]func(testing.TB) string{"codex": realcodex.CLI.Require, "claude": realclaude.CLI.Require,
		"gemini": realgemini.CLI.Require, "qwen": realqwen.CLI.Require, "opencode": realopencode.CLI.Require, "pi": realpi.CLI.Require,
		"droid": realdroid.CLI.Require, "copilot": realcopilot.CLI.Require, "kimi": realkimi.CLI.Require, "kilo": realkilo.CLI.Require,
		"continue": realcontinue.CLI.Require}
	root := t.TempDir()
	tm := &testTeam{exe: buildCommand(t), work: filepath.Join(root, "work"), file: filepath.Join(root, "handoff-team.toml"),
		srv: tmuxdriver.Server{Socket: "ht-team-" + randomHex(t)}, agents: agents, models: map[string]*fakemodel.Server{}}
	if err := os.MkdirAll(tm.work, 0o755); err != nil {
		t.Fatal(err)
	}
	ready := "150s"
	for _, a := range agents {
		if a.provider == "kilo" {
			ready = "300s" // its start on a loaded machine (realkilo.CLI's ReadyTimeout)
		}
	}
	var toml strings.Builder
	fmt.Fprintf(&toml, "socket = %s\nsession = %s\nworkdir = %s\nready_timeout = %q\n", q(tm.srv.Socket), q(teamSession), q(tm.work), ready)
	var homes []string
	shared := map[string]*fakemodel.Server{} // by home
	for _, a := range agents {
		bin := finds[a.provider](t)
		name := a.home
		if name == "" {
			name = a.role
		}
		model := shared[name]
		if model == nil {
			var err error
			if model, err = fakemodel.Start(context.Background(), apis[a.provider]); err != nil {
				t.Fatal(err)
			}
			shared[name] = model
			if a.provider == "opencode" || a.provider == "kilo" {
				model.SetSide(fakemodel.Answer("Handoff session")) // the session's title
			}
			t.Cleanup(func() {
				_ = model.Close()
				for _, p := range model.Problems() {
					t.Logf("fake model of %s: %s", name, p)
				}
			})
		}
		tm.models[a.role] = model
		home := tm.home(name)
		if a.provider == "codex" {
			homes = append(homes, home)
		}
		env, args, files := teamAgent(t, a.provider, tm.work, home, model.URL)
		if a.untrusted {
			cj, err := json.Marshal(realclaude.ClaudeJSON(realclaude.Options{Common: realcli.Common{Workdir: tm.work}, Untrusted: true}))
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Join(home, ".claude.json")] = cj
		}
		for path, data := range files {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&toml, "\n[agents.%s]\nprovider = %q\ncommand = %s\nargs = %s\nenv = {", a.role, a.provider, q(bin), tomlList(args))
		for i, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if i > 0 {
				toml.WriteString(",")
			}
			fmt.Fprintf(&toml, " %s = %s", k, q(v))
		}
		toml.WriteString(" }\n")
	}
	if err := os.WriteFile(tm.file, []byte(toml.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if t.Failed() {
			tm.explain(ctx, t)
		}
		left := teamProcesses(ctx, tm.srv)
		_, _, _ = handoffCLI(ctx, tm.exe, tm.work, "down", "-f", tm.file)
		_ = (&tmuxdriver.Private{Server: tm.srv, SocketFile: tm.srv.SocketFile(ctx)}).Close(ctx)
		for _, pid := range left {
			if realcli.Alive(pid) {
				t.Errorf("process %d of the team outlived down", pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		for _, home := range homes {
			for _, err := range realcodex.StopDaemons(home) {
				t.Errorf("codex daemon of %s: %v", home, err)
			}
		}
	})
	return tm
}

// explain logs, for a failed test, what each agent's model was asked and
// answered, and each pane's screen.
func (tm *testTeam) explain(ctx context.Context, t *testing.T) {
	panes, _ := tm.srv.Run(ctx, nil, "list-panes", "-s", "-t", "="+teamSession, "-F", "#{@handoff_role} #{pane_id}")
	for _, a := range tm.agents {
		var b strings.Builder
		for _, r := range tm.models[a.role].Requests() {
			text := r.UserText
			if len(text) > 120 {
				text = text[:120] + "…"
			}
			fmt.Fprintf(&b, "\n  %s %s %s reply %q, user text %q, tool results %q", r.At.Format("15:04:05.000"), r.Kind, r.Path, r.Reply, text, r.ToolResults)
		}
		t.Logf("the %s's (%s) model: %d requests, problems %v%s", a.role, a.provider, len(tm.models[a.role].Requests()), tm.models[a.role].Problems(), b.String())
	}
	// What is in the response folder, the archive and the hooks' folders.
	_ = filepath.WalkDir(filepath.Join(tm.work, ".tmp"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				t.Logf("%s %s %d bytes", fi.ModTime().Format("15:04:05.000"), path, fi.Size())
			}
		}
		return nil
	})
	for _, line := range strings.Split(strings.TrimSpace(panes), "\n") {
		role, pane, _ := strings.Cut(line, " ")
		if screen, err := tm.srv.Run(ctx, nil, "capture-pane", "-p", "-t", pane); err == nil {
			t.Logf("the %s's pane %s:\n%s", role, pane, strings.TrimRight(realcli.StripANSI(screen), "\n "))
		}
	}
}

// teamAgent is one agent of the team file: its environment (KEY=value),
// arguments and the home files it needs, from the harness's descriptors
// (what realcodex, realclaude, … start their CLIs with).
func teamAgent(t *testing.T, provider, work, home, url string) (env, args []string, files map[string][]byte) {
	t.Helper()
	common := realcli.Common{Workdir: work, Home: home, BaseURL: url}
	var l realcli.Launch
	switch provider {
	case "codex":
		cfg := realcodex.Config(realcodex.Options{Common: common, HideTips: true})
		return []string{"CODEX_HOME=" + home, "TERM=xterm-256color", "LANG=C.UTF-8"}, nil,
			map[string][]byte{filepath.Join(home, "config.toml"): []byte(cfg)}
	case "claude":
		o := realclaude.Options{Common: common}
		l = realcli.Launch{Env: realclaude.Env(o), Args: realclaude.Args(o),
			JSON: map[string]any{".claude.json": realclaude.ClaudeJSON(o), filepath.Join(".claude", "settings.json"): realclaude.Settings(o)}}
	case "gemini":
		o := realgemini.Options{Common: common}
		l = realcli.Launch{Env: realgemini.Env(o), Args: realgemini.Args(o),
			JSON: map[string]any{filepath.Join(".gemini", "settings.json"): realgemini.Settings(o)}}
	case "qwen":
		o := realqwen.Options{Common: common}
		l = realcli.Launch{Env: realqwen.Env(o), Args: realqwen.Args(o),
			JSON: map[string]any{filepath.Join(".qwen", "settings.json"): realqwen.Settings(o)}}
	case "opencode":
		o := realopencode.Options{Common: common}
		l = realcli.Launch{Env: realopencode.Env(o), Args: realopencode.Args(o),
			JSON: map[string]any{filepath.Join(".config", "opencode", "opencode.json"): realopencode.Config(o)}}
	case "pi":
		o := realpi.Options{Common: common}
		l = realcli.Launch{Env: realpi.Env(o), JSON: realpi.JSON(o), Files: realpi.Files(o)}
	case "droid":
		o := realdroid.Options{Common: common}
		l = realcli.Launch{Env: realdroid.Env(o), JSON: realdroid.JSON(o), Args: realdroid.Args(o)}
	case "kimi":
		// The user answered Kimi Code's trust question for the work
		// folder once (its record in the home), as a user of up has.
		o := realkimi.Options{Common: common}
		trust, record := realkimi.TrustRecord(work)
		l = realcli.Launch{Env: realkimi.Env(o), Args: realkimi.Args(o), Files: map[string][]byte{realkimi.ConfigPath: realkimi.Config(o), trust: record}}
	case "kilo":
		o := realkilo.Options{Common: common}
		l = realcli.Launch{Env: realkilo.Env(o), JSON: map[string]any{realkilo.ConfigFile: realkilo.Config(o)}}
	case "copilot":
		o := realcopilot.Options{Common: common}
		l = realcli.Launch{Env: realcopilot.Env(o), Args: realcopilot.Args(o), JSON: realcopilot.JSON(o)}
	case "continue":
		// The user's own config.yaml where Continue looks for it, and
		// the mark of its first run's onboarding (without it Continue asks
		// for an Anthropic key first); no --config.
		o := realcontinue.Options{Common: common}
		l = realcli.Launch{Env: realcontinue.Env(o), Args: []string{"--auto"},
			Files: map[string][]byte{realcontinue.ConfigPath: realcontinue.Config(o), realcontinue.OnboardedPath: []byte("2026-01-01T00:00:00.000Z")}}
	default:
		t.Fatalf("no descriptor for %s", provider)
	}
	files = map[string][]byte{}
	for path, data := range l.Files {
		files[filepath.Join(home, path)] = data
	}
	for path, doc := range l.JSON {
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Join(home, path)] = data
	}
	return l.Env, l.Args, files
}

// handoffCLI runs the command in dir and returns its stdout, stderr and
// exit code.
func handoffCLI(ctx context.Context, exe, dir string, args ...string) (string, string, int) {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	var out, errs testkit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		code = -1
		errs.Write([]byte(err.Error()))
	}
	return out.String(), errs.String(), code
}

// panePIDs maps each agent's role to its pane's process, as tmux says.
func panePIDs(ctx context.Context, t *testing.T, srv tmuxdriver.Server) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for role, pid := range teamPanes(ctx, t, srv, "#{pane_pid}", true) {
		pids[role], _ = strconv.Atoi(pid)
	}
	return pids
}

// teamPanes maps each agent's role to field (a tmux format: #{pane_id},
// #{pane_pid}) of its pane; with live, only of the panes whose process
// still runs.
func teamPanes(ctx context.Context, t *testing.T, srv tmuxdriver.Server, field string, live bool) map[string]string {
	t.Helper()
	out, err := srv.Run(ctx, nil, "list-panes", "-s", "-t", "="+teamSession, "-F", "#{@handoff_role} #{pane_dead} "+field)
	if err != nil {
		t.Fatal(err)
	}
	panes := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && (!live || f[1] == "0") {
			panes[f[0]] = f[2]
		}
	}
	return panes
}

// teamProcesses lists every process of the team's panes: each pane's
// process and everything below it (Gemini CLI's launcher and its child,
// the CLIs' own helpers).
func teamProcesses(ctx context.Context, srv tmuxdriver.Server) []int {
	out, err := srv.Run(ctx, nil, "list-panes", "-a", "-F", "#{pane_dead} #{pane_pid}")
	if err != nil {
		return nil
	}
	var pids []int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		dead, p, _ := strings.Cut(line, " ")
		if pid, err := strconv.Atoi(p); err == nil && dead == "0" {
			pids = append(append(pids, pid), descendantsOf(pid)...)
		}
	}
	return pids
}

// userCacheDir is where up keeps the per-run settings files.
func userCacheDir(t *testing.T) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// rootOwnedChain reports whether dir and every folder above it are root's
// and writable by no group or other user (Gemini CLI's rule for a system
// settings file; up creates what is missing below dir as this user).
func rootOwnedChain(dir string) bool {
	if os.Geteuid() != 0 {
		return false
	}
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
				return false
			}
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// q is s as a TOML basic string (a JSON string is one).
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func tomlList(ss []string) string {
	if ss == nil {
		ss = []string{}
	}
	b, _ := json.Marshal(ss)
	return string(b)
}

func randomHex(t *testing.T) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// up answers no dialog a user must decide: Claude Code in a folder it was
// never told to trust shows its trust question, and up reports the agent
// by name with that screen (exit 1) instead of answering it, while the
// Codex agent beside it is ready and left running. The question is still
// on the screen afterwards; down ends both.
func TestRealTeamUpReportsAnAgentAtADialog(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{
		{role: "analyst", provider: "codex"},
		{role: "programmer", provider: "claude", untrusted: true},
	})
	exe, work, file, srv := tm.exe, tm.work, tm.file, tm.srv
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	out, errs, code := handoffCLI(ctx, exe, work, "up", "-f", file)
	t.Logf("up:\n%s%s", out, errs)
	if code != 1 {
		t.Fatalf("up with Claude Code at its trust question: exit %d, want 1", code)
	}
	for _, want := range []string{"agent programmer (pane %", "is not ready: it waits for a user's answer", realclaude.TrustQuestion} {
		if !strings.Contains(errs, want) {
			t.Errorf("up's stderr does not say %q", want)
		}
	}
	if strings.Contains(errs, "agent analyst") || !regexp.MustCompile(`(?m)^analyst +%\d+ +codex .* started +idle`).MatchString(out) {
		t.Errorf("the Codex agent beside it should be ready")
	}
	// Nothing answered the question: it is still there, the agent alive.
	screen, err := srv.Run(ctx, nil, "capture-pane", "-p", "-t", "=team:programmer")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(realcli.StripANSI(screen), realclaude.TrustQuestion) {
		t.Errorf("after up the programmer's pane no longer shows the trust question:\n%s", screen)
	}
	if pids := panePIDs(ctx, t, srv); len(pids) != 2 {
		t.Errorf("running agents after up: %v, want both", pids)
	}
	procs := teamProcesses(ctx, srv)
	if out, errs, code := handoffCLI(ctx, exe, work, "down", "-f", file); code != 0 {
		t.Fatalf("down: exit %d\n%s%s", code, out, errs)
	}
	for _, pid := range procs {
		if realcli.Alive(pid) {
			t.Errorf("process %d outlived down", pid)
		}
	}
}

// The other three CLIs in a team: Qwen Code's Stop hook, wired by up
// through QWEN_CODE_SYSTEM_DEFAULTS_PATH, marks the end of a dispatched
// turn (OpenCode and pi have no command hook: up says so); after each
// answered one prompt, all three die, and up restarts each with its
// --continue, which each takes: ready again, showing the conversation it
// went on with. down leaves no process behind.
func TestRealTeamHooksAndResumeOfQwenOpenCodeAndPi(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{
		{role: "analyst", provider: "qwen"},
		{role: "programmer", provider: "opencode"},
		{role: "tester", provider: "pi"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tm.up(ctx, t, `analyst +%\d+ +qwen .* started .*QWEN_CODE_SYSTEM_DEFAULTS_PATH`,
		`programmer +%\d+ +opencode .* started .*none \(opencode has no command hook\)`,
		`tester +%\d+ +pi .* started .*none \(pi has no command hook\)`)
	panes := paneIDs(ctx, t, tm.srv)
	shown := map[string]string{}
	for _, a := range tm.agents {
		answer := "Hello from the " + a.role + "."
		shown[a.role] = "Say hello as the " + a.role
		tm.models[a.role].Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Done."))
		args := []string{"send", "--socket", tm.srv.Socket, "--target", panes[a.role], "--provider", a.provider,
			"--role", a.role, "--workdir", tm.work, "--poll", "250ms", "--idle-grace", "8s", "--timeout", "3m",
			"--prompt", "Say hello as the " + a.role + "."}
		if a.provider == "qwen" {
			args = append(args, "--hook-dir", filepath.Join(tm.work, ".tmp", "agent-events", a.role))
		}
		out, errs, code := handoffCLI(ctx, tm.exe, tm.work, args...)
		if code != 0 || strings.TrimSpace(out) != answer {
			t.Fatalf("send to the %s (%s): exit %d, stdout %q\n%s", a.role, a.provider, code, out, errs)
		}
	}
	if m, ok, err := hookmark.Read(filepath.Join(tm.work, ".tmp", "agent-events", "analyst"), hookmark.Stopped); !ok || err != nil {
		t.Errorf("no Stop marker of Qwen Code's hook: %v", err)
	} else {
		t.Logf("Qwen Code's Stop hook: %+v", m)
	}
	// Each goes on with its session: the prompt it answered shows again
	// (OpenCode draws its composer before it loads the session's messages).
	tm.killResumeDown(ctx, t, shown, 60*time.Second, nil)
}

// droid in a team: its Stop hook, wired by up through --settings FILE (a
// file of the run's own, merged over the user's settings), marks the end
// of a dispatched turn; after the turn it dies, and up restarts it with
// --resume --last, which goes on with the conversation. down leaves no
// process behind.
func TestRealTeamHookAndResumeOfDroid(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{{role: "reviewer", provider: "droid"}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tm.up(ctx, t, `reviewer +%\d+ +droid .* started .*--settings FILE`)
	// up returns once droid's composer shows; droid takes input only once
	// its session is up (docs/providers.md): a prompt pasted before is lost.
	tm.waitDroidSession(ctx, t, "reviewer")
	tm.sendTwiceOnTheHook(ctx, t, "reviewer", "droid")
	tm.killResumeDown(ctx, t, map[string]string{"reviewer": "Say hello as the reviewer (2)"}, 90*time.Second, nil)
}

// sendTwiceOnTheHook dispatches two prompts to role's agent with `send
// --provider prov --hook-dir`, each answered through its file, then waits
// for the Stop marker of the agent's hook: the second dispatch may end on
// its file before the CLI runs its hook (each send removes the last
// marker first), and the marker comes at the end of the turn.
func (tm *testTeam) sendTwiceOnTheHook(ctx context.Context, t *testing.T, role, prov string) {
	t.Helper()
	panes := paneIDs(ctx, t, tm.srv)
	events := filepath.Join(tm.work, ".tmp", "agent-events", role)
	for i, answer := range []string{"Hello from the " + role + ".", "Hello again from the " + role + "."} {
		tm.models[role].Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Done."))
		out, errs, code := handoffCLI(ctx, tm.exe, tm.work, "send", "--socket", tm.srv.Socket, "--target", panes[role],
			"--provider", prov, "--role", role, "--workdir", tm.work, "--poll", "250ms", "--idle-grace", "8s",
			"--timeout", "3m", "--hook-dir", events, "--prompt", fmt.Sprintf("Say hello as the %s (%d).", role, i+1))
		if code != 0 || strings.TrimSpace(out) != answer {
			t.Fatalf("send %d to %s: exit %d, stdout %q\n%s", i+1, prov, code, out, errs)
		}
	}
	testkit.WaitFor(t, "the Stop marker of "+prov+"'s hook", func() bool {
		_, ok, err := hookmark.Read(events, hookmark.Stopped)
		return ok && err == nil
	})
}

// home is the HOME folder of the agents named name (an agent's role, or
// the home it shares with others): startTeam writes it beside the work
// folder.
func (tm *testTeam) home(name string) string {
	return filepath.Join(filepath.Dir(tm.work), "home-"+name)
}

// up runs `up -f` for the team (it must exit 0) and checks that its table
// matches each of rows (the agent's line: its pane, provider, state and
// hook wiring).
func (tm *testTeam) up(ctx context.Context, t *testing.T, rows ...string) {
	t.Helper()
	out, errs, code := handoffCLI(ctx, tm.exe, tm.work, "up", "-f", tm.file)
	t.Logf("up:\n%s%s", out, errs)
	if code != 0 {
		t.Fatalf("up: exit %d", code)
	}
	for _, row := range rows {
		if want := regexp.MustCompile(`(?m)^` + row); !want.MatchString(out) {
			t.Errorf("up's table does not match %s", want)
		}
	}
}

// killResumeDown kills every agent of the team, runs up again, which must
// restart each with its CLI's resume (" restarted (resumed) "), waits
// until each agent's pane shows again its conversation (shown, by role)
// within wait, then runs down, after which no process of the team is left.
// up, when not nil, runs up in place of a plain `up -f` (a CLI whose
// config up reads from up's own environment).
func (tm *testTeam) killResumeDown(ctx context.Context, t *testing.T, shown map[string]string, wait time.Duration, up func() (string, string, int)) {
	t.Helper()
	tm.killResume(ctx, t, shown, wait, up)
	tm.downLeavesNothing(ctx, t)
}

// killResume is killResumeDown without the down: the agents run on.
func (tm *testTeam) killResume(ctx context.Context, t *testing.T, shown map[string]string, wait time.Duration, up func() (string, string, int)) {
	t.Helper()
	panes := paneIDs(ctx, t, tm.srv)
	for _, pid := range panePIDs(ctx, t, tm.srv) {
		if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); len(panePIDs(ctx, t, tm.srv)) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed agents' panes are not dead after 30 s: %v", panePIDs(ctx, t, tm.srv))
		}
	}
	if up == nil {
		up = func() (string, string, int) { return handoffCLI(ctx, tm.exe, tm.work, "up", "-f", tm.file) }
	}
	out, errs, code := up()
	t.Logf("up after the agents died:\n%s%s", out, errs)
	if code != 0 || strings.Count(out, " restarted (resumed) ") != len(tm.agents) {
		t.Fatalf("up after the agents died: exit %d, want each of the %d restarted (resumed)", code, len(tm.agents))
	}
	for _, a := range tm.agents {
		var screen string
		for deadline := time.Now().Add(wait); ; time.Sleep(200 * time.Millisecond) {
			out, err := tm.srv.Run(ctx, nil, "capture-pane", "-p", "-J", "-S", "-", "-t", panes[a.role])
			if err != nil {
				t.Fatal(err)
			}
			if screen = realcli.StripANSI(out); strings.Contains(screen, shown[a.role]) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the restarted %s (%s) does not show its earlier conversation within %v:\n%s", a.role, a.provider, wait, screen)
				break
			}
		}
	}
}

// downLeavesNothing runs down, which must exit 0 and leave no process of
// the team running.
func (tm *testTeam) downLeavesNothing(ctx context.Context, t *testing.T) {
	t.Helper()
	procs := teamProcesses(ctx, tm.srv)
	if out, errs, code := handoffCLI(ctx, tm.exe, tm.work, "down", "-f", tm.file); code != 0 {
		t.Fatalf("down: exit %d\n%s%s", code, out, errs)
	}
	for _, pid := range procs {
		if realcli.Alive(pid) {
			t.Errorf("process %d outlived down", pid)
		}
	}
}

// waitDroidSession waits until the droid of role has its session: its
// pane's title names one, or its log says so (realdroid.SessionShown,
// realdroid.SessionUp).
func (tm *testTeam) waitDroidSession(ctx context.Context, t *testing.T, role string) {
	t.Helper()
	pane := paneIDs(ctx, t, tm.srv)[role]
	log := filepath.Join(tm.home(role), ".factory", "logs", "droid-log-single.log")
	var title string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		out, err := tm.srv.Run(ctx, nil, "display-message", "-p", "-t", pane, "#{pane_title}")
		if err != nil {
			t.Fatal(err)
		}
		if title = strings.TrimSpace(out); realdroid.SessionShown(title) || realdroid.SessionUp(log) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("droid's session is not up after 2 minutes (title %q, %s)", title, log)
		}
	}
}

// paneIDs maps each agent's role to its pane id.
func paneIDs(ctx context.Context, t *testing.T, srv tmuxdriver.Server) map[string]string {
	t.Helper()
	return teamPanes(ctx, t, srv, "#{pane_id}", false)
}
