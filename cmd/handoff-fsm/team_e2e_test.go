package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/loop"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// teamFile writes a team file on a tmux socket of the test's own and ends
// that server, and every process in it, when the test ends.
func teamFile(t *testing.T, body string) (path, socket, workdir string) {
	t.Helper()
	requireTmux(t)
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	socket = "handoff-team-e2e-" + hex.EncodeToString(rnd[:])
	path = writeFile(t, "handoff-team.toml", "socket = \""+socket+"\"\n"+body)
	workdir = filepath.Dir(path)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv := tmuxdriver.Server{Socket: socket}
		if err := (&tmuxdriver.Private{Server: srv, SocketFile: srv.SocketFile(ctx)}).Close(ctx); err != nil {
			t.Errorf("end the team's tmux server: %v", err)
		}
	})
	return path, socket, workdir
}

// pidAlive reports whether pid runs (a zombie has ended).
func pidAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// The whole path on a machine without agent CLIs: up --demo starts the
// five simulated agents, up again leaves them alone, run drives the loop
// with one review that sends the analysis back, and down ends every
// process and the server while what the agents wrote stays.
func TestTeamUpRunDownWithTheDemo(t *testing.T) {
	file, socket, workdir := teamFile(t, `[agents.analyst]
[agents.analyst_review]
demo_answers = ["CHANGES REQUESTED: name the flag", "APPROVED: clear plan"]
[agents.programmer]
provider = "claude"
[agents.programmer_review]
[agents.tester]
demo_answers = ["PASS: 3 tests"]
`)
	out, errs, code := cli(t, "", "up", "--demo", "-f", file)
	if code != 0 {
		t.Fatalf("up --demo: exit %d\n%s%s", code, out, errs)
	}
	for _, role := range loop.Roles {
		if !strings.Contains(out, role+" ") || !strings.Contains(out, "started") {
			t.Errorf("up does not show %s started:\n%s", role, out)
		}
	}
	if strings.Count(out, "codex (simulated)") != 5 || !strings.Contains(out, "sim-agent of handoff-fsm") {
		t.Errorf("up does not show each agent's provider and version:\n%s", out)
	}
	srv := tmuxdriver.Server{Socket: socket}
	out, errs, code = cli(t, "", "up", "--demo", "-f", file)
	if code != 0 || strings.Count(out, "running") != 5 || strings.Contains(out, "started") {
		t.Errorf("up again: exit %d, want every agent left running:\n%s%s", code, out, errs)
	}
	// An agent whose window is gone is started again; the others are left alone.
	if _, err := srv.Run(context.Background(), nil, "kill-window", "-t", "=team:tester"); err != nil {
		t.Fatal(err)
	}
	out, errs, code = cli(t, "", "up", "--demo", "-f", file)
	if code != 0 || strings.Count(out, "running") != 4 || !regexp.MustCompile(`tester .* started`).MatchString(out) {
		t.Errorf("up after the tester's window was closed: exit %d, want it started and the others running:\n%s%s", code, out, errs)
	}
	panes, err := srv.Run(context.Background(), nil, "list-panes", "-a", "-F", "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(panes) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	if len(pids) != 5 {
		t.Fatalf("%d panes, want 5: %v", len(pids), pids)
	}

	out, errs, code = cli(t, "", "run", "-f", file, "--task", "Add a --verbose flag", "--poll", "200ms", "--idle-grace", "10s")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	if strings.TrimSpace(out) != "PASS: 3 tests" {
		t.Errorf("run printed %q, want the tester's report", out)
	}
	steps, err := loop.ReadJournal(filepath.Join(workdir, ".tmp", "handoff-run"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.Role+":"+s.Verdict)
		if s.Archived == "" {
			t.Errorf("step %d %s: no archived answer", s.N, s.Role)
		} else if _, err := os.Stat(s.Archived); err != nil {
			t.Errorf("step %d %s: %v", s.N, s.Role, err)
		}
	}
	want := "analyst: analyst_review:changes requested analyst: analyst_review:approved programmer: programmer_review:approved tester:"
	if strings.Join(got, " ") != want {
		t.Errorf("steps %s\nwant  %s", strings.Join(got, " "), want)
	}
	// The review sent the analysis back: the analyst was asked to revise
	// (the simulated agent's answer quotes its prompt's first line).
	if len(steps) == 7 && !strings.Contains(steps[2].Response, "Your reviewer asked for changes") {
		t.Errorf("the analyst's third step answered %q, want a revision", steps[2].Response)
	}
	for _, want := range []string{"summary", "changes requested", "step 2 analyst_review", "Working"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errs)
		}
	}

	out, errs, code = cli(t, "", "down", "-f", file)
	if code != 0 || strings.Count(out, "ended") != 5 {
		t.Fatalf("down: exit %d\n%s%s", code, out, errs)
	}
	for _, pid := range pids {
		if pidAlive(pid) {
			t.Errorf("agent process %d outlived down", pid)
		}
	}
	if !serverGone(socket) {
		t.Errorf("the team's tmux server %s still runs after down", socket)
	}
	if _, err := os.Stat(steps[0].Archived); err != nil {
		t.Errorf("down removed what an agent wrote: %v", err)
	}
}

// run names the agents that do not run, and sends nothing.
func TestTeamRunWithoutAgents(t *testing.T) {
	file, _, _ := teamFile(t, "[agents.analyst]\n[agents.analyst_review]\n[agents.programmer]\n[agents.programmer_review]\n[agents.tester]\n")
	_, errs, code := cli(t, "", "run", "-f", file, "--task", "x")
	if code != exitFailure || !strings.Contains(errs, "analyst (not started)") || !strings.Contains(errs, "handoff-fsm up") {
		t.Errorf("run without agents: exit %d\n%s", code, errs)
	}
	_, errs, code = cli(t, "", "up", "-f", writeFile(t, "bad.toml", "[agents.analyst]\nprovidr = \"codex\"\n"))
	if code != exitUsage || !strings.Contains(errs, "agents.analyst.providr") {
		t.Errorf("up with a bad file: exit %d\n%s", code, errs)
	}
}

// Ctrl-C while the programmer works, and run again: the finished steps are
// read back, the programmer's wait is resumed without pasting its prompt
// again, and the run ends as an uninterrupted one would.
func TestTeamRunGoesOnAfterCtrlC(t *testing.T) {
	for _, mode := range []string{"here", "through the service"} {
		t.Run(mode, func(t *testing.T) { runGoesOnAfterCtrlC(t, mode == "through the service") })
	}
}

// runGoesOnAfterCtrlC interrupts run while the programmer's step waits and
// runs it again: the step is waited for again, not sent twice. Through the
// service (run --server) the dispatch goes on in the service meanwhile,
// and the run finds it again by the id its journal kept.
func runGoesOnAfterCtrlC(t *testing.T, viaService bool) {
	t.Parallel()
	// The programmer works until the test says it may finish.
	finish := filepath.Join(t.TempDir(), "programmer-may-finish")
	file, socket, workdir := teamFile(t, `[agents.analyst]
[agents.analyst_review]
[agents.programmer]
demo_answers = ["first answer", "second answer"]
demo_args = ["--work-until", "`+finish+`"]
[agents.programmer_review]
[agents.tester]
demo_answers = ["PASS: 1 test"]
`)
	if out, errs, code := cli(t, "", "up", "--demo", "-f", file); code != 0 {
		t.Fatalf("up --demo: exit %d\n%s%s", code, out, errs)
	}
	args := []string{"run", "-f", file, "--task", "Fix the bug", "--poll", "200ms", "--idle-grace", "10s"}
	var svc *service
	if viaService {
		dir, sock := serveDirs(t)
		svc = startServe(t, dir, sock)
		args = append(args, "--server", "unix:"+sock)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := cliCmd(ctx, args...)
	var stderr testkit.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	working := regexp.MustCompile(`step 3 programmer [^\n]*→ Working`)
	for deadline := time.Now().Add(90 * time.Second); !working.MatchString(stderr.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the programmer never worked:\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatalf("the interrupted run exited 0:\n%s", stderr.String())
	}
	journal := filepath.Join(workdir, ".tmp", "handoff-run")
	if steps, _ := loop.ReadJournal(journal); len(steps) != 2 {
		t.Fatalf("%d steps before the interruption, want 2", len(steps))
	}
	if err := os.WriteFile(finish, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	out, errs, code := cli(t, "", args...)
	if code != 0 || strings.TrimSpace(out) != "PASS: 1 test" {
		t.Fatalf("the run again: exit %d, stdout %q\n%s", code, out, errs)
	}
	// One path, through the service or the run's own engine.
	resumed, sent := "step 3 programmer: resuming the wait", "step 3 programmer: sending"
	if !strings.Contains(errs, resumed) || strings.Contains(errs, sent) {
		t.Errorf("the programmer's step was not resumed:\n%s", errs)
	}
	if viaService {
		views, err := svc.client.List(context.Background(), nil)
		if err != nil || len(views) != 5 {
			t.Errorf("the service ran %d dispatches (%v), want one per step: 5", len(views), err)
		}
	}
	steps, err := loop.ReadJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, s := range steps {
		roles = append(roles, s.Role)
	}
	if got := strings.Join(roles, " "); got != "analyst analyst_review programmer programmer_review tester" {
		t.Errorf("steps %s: one ran twice or was lost", got)
	}
	// The programmer answered its first prompt only: a second paste would
	// have been its second turn.
	if len(steps) == 5 && strings.TrimSpace(steps[2].Response) != "first answer" {
		t.Errorf("the programmer's step answered %q", steps[2].Response)
	}
	screen, err := tmuxdriver.Server{Socket: socket}.Run(context.Background(), nil, "capture-pane", "-p", "-J", "-S", "-", "-t", "=team:programmer")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(screen, "Implement this plan"); n != 1 {
		t.Errorf("the programmer's pane shows %d prompts, want 1:\n%s", n, screen)
	}
	if _, errs, code := cli(t, "", "down", "-f", file); code != 0 {
		t.Errorf("down: exit %d\n%s", code, errs)
	}
}

// A step that fails ends the run with send's exit code for its ending and
// a summary of the steps done; run then names the dead agent, and up
// restarts it in its pane.
func TestTeamRunStopsOnAFailedStep(t *testing.T) {
	file, _, _ := teamFile(t, `[agents.analyst]
[agents.analyst_review]
[agents.programmer]
[agents.programmer_review]
[agents.tester]
demo_args = ["--scenario", "crash"]
`)
	if out, errs, code := cli(t, "", "up", "--demo", "-f", file); code != 0 {
		t.Fatalf("up --demo: exit %d\n%s%s", code, out, errs)
	}
	args := []string{"run", "-f", file, "--task", "Fix the bug", "--poll", "200ms", "--idle-grace", "10s"}
	out, errs, code := cli(t, "", args...)
	if code != exitTerminal || out != "" {
		t.Fatalf("run with a crashing tester: exit %d (want %d), stdout %q\n%s", code, exitTerminal, out, errs)
	}
	for _, want := range []string{"step 5 tester", "summary", "programmer_review  done (file): approved", "tester             failed (terminal_error)",
		"agent tester (pane %", "its process exited", "restart it with handoff-fsm up"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errs)
		}
	}
	// status --team names the dead agent and exits 4; the others run.
	out, errs, code = cli(t, "", "status", "--team", "-f", file)
	if code != exitTerminal || !regexp.MustCompile(`(?m)^tester +%\d+ +codex +exited`).MatchString(out) ||
		strings.Count(out, " pid ") != 4 || !strings.Contains(errs, "handoff-fsm up") {
		t.Errorf("status --team with a dead tester: exit %d (want %d)\n%s%s", code, exitTerminal, out, errs)
	}
	_, errs, code = cli(t, "", args...)
	if code != exitFailure || !strings.Contains(errs, "tester (its process exited)") {
		t.Errorf("run with a dead tester: exit %d\n%s", code, errs)
	}
	out, errs, code = cli(t, "", "up", "--demo", "-f", file)
	if code != 0 || !regexp.MustCompile(`tester .* restarted`).MatchString(out) || strings.Count(out, "running") != 4 {
		t.Errorf("up with a dead tester: exit %d, want it restarted and the others running:\n%s%s", code, out, errs)
	}
}
