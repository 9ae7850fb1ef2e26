package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// service is `handoff-fsm serve` running as its own process (this test
// binary as the command).
type service struct {
	cmd    *exec.Cmd
	sock   string
	dir    string
	stderr *testkit.Buffer
	client *serve.Client
}

// startServe runs handoff-fsm serve on a socket of its own and the state
// folder dir (env: more KEY=VALUE for it), and waits until it answers. It
// is killed when the test ends.
func startServe(t testing.TB, dir, sock string, env ...string) *service {
	t.Helper()
	cmd := cliCmd(context.Background(), "serve", "--listen", "unix:"+sock, "--state-dir", dir)
	cmd.Env = append(cmd.Env, env...)
	s := &service{cmd: cmd, sock: sock, dir: dir, stderr: &testkit.Buffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.kill() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not listen on %s:\n%s", sock, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.client = serve.NewClient(serve.Address{Network: "unix", Addr: sock}, "")
	return s
}

// kill ends the service with SIGKILL: no goodbye, no last write.
func (s *service) kill() {
	if s.cmd.ProcessState == nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_ = s.cmd.Wait()
	}
}

// serveDirs makes a state folder and a socket path (short: unix socket
// paths are limited to about 100 bytes).
func serveDirs(t testing.TB) (dir, sock string) {
	t.Helper()
	run, err := os.MkdirTemp("", "hfs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	return t.TempDir(), filepath.Join(run, "run", "s.sock")
}

// send --server gives the same stdout and exit code as a local send, for
// every ending: done from the file, fallback, no response file, a crashed
// agent, a busy slot, bad input.
func TestSendThroughTheServiceEndsAsALocalSend(t *testing.T) {
	t.Parallel()
	dir, sock := serveDirs(t)
	startServe(t, dir, sock)
	never := []string{"--scenario", "never-writes", "--startup", "300ms", "--work", "500ms", "--stream", "300ms"}
	for name, c := range map[string]struct {
		sim  []string
		args []string
		code int
	}{
		"done":     {sim: quickAgent, code: exitOK},
		"no file":  {sim: never, args: []string{"--idle-grace", "1500ms"}, code: exitNoFile},
		"fallback": {sim: never, args: []string{"--idle-grace", "1500ms", "--strict=false"}, code: exitFallback},
		"crash":    {sim: []string{"--scenario", "crash", "--startup", "300ms", "--work", "1s"}, code: exitTerminal},
		// send's other knobs go through the service too.
		"auto-answered": {sim: append([]string{"--scenario", "asks"}, quickAgent...), args: []string{"--auto-answer", "y"}, code: exitOK},
		"needs the user": {sim: append([]string{"--scenario", "asks"}, quickAgent...),
			args: []string{"--auto-answer", "n", "--max-answers", "1", "--answer-cooldown", "300ms"}, code: exitNeedsUser},
		"reminded, then done": {sim: append([]string{"--scenario", "forgets"}, quickAgent...), args: []string{"--reminders", "1"}, code: exitOK},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			local, remote := startAgent(t, c.sim...), startAgent(t, c.sim...)
			args := append(append([]string{"--poll", "250ms", "--idle-grace", "3s", "--timeout", "60s"}, c.args...), "--prompt", "same either way")
			lout, lerr, lcode := cli(t, "", local.sendArgs(args...)...)
			rout, rerr, rcode := cli(t, "", remote.sendArgs(append(args, "--server", "unix:"+sock)...)...)
			if lcode != c.code || rcode != c.code {
				t.Fatalf("exit local %d, through the service %d; want %d\nlocal:\n%s\nservice:\n%s", lcode, rcode, c.code, lerr, rerr)
			}
			if name != "fallback" && lout != rout {
				t.Fatalf("stdout local %q, through the service %q", lout, rout)
			}
			if name == "fallback" && (!strings.Contains(rout, "on screen only") || !strings.Contains(lout, "on screen only")) {
				t.Fatalf("fallback stdout local %q, service %q", lout, rout)
			}
			// --json: the same result object.
			if name == "done" {
				jout, _, jcode := cli(t, "", remote.sendArgs(append(args, "--server", "unix:"+sock, "--json")...)...)
				rep := decodeReport(t, jout)
				if jcode != exitOK || rep.Outcome != "done" || rep.Source != "file" || rep.Content != "same either way\n" || len(rep.Transitions) == 0 {
					t.Fatalf("--json through the service: exit %d %+v", jcode, rep)
				}
			}
		})
	}
	t.Run("usage errors", func(t *testing.T) {
		t.Parallel()
		a := startAgent(t, quickAgent...)
		for _, extra := range [][]string{{"--provider", "nope"}, {"--record", "/tmp/x.jsonl"}} {
			_, stderr, code := cli(t, "", a.sendArgs(append(extra, "--server", "unix:"+sock, "--prompt", "x")...)...)
			if code != exitUsage {
				t.Errorf("%v: exit %d\n%s", extra, code, stderr)
			}
		}
		_, stderr, code := cli(t, "", a.sendArgs("--server", "unix:"+filepath.Join(filepath.Dir(sock), "nobody.sock"), "--prompt", "x")...)
		if code != exitFailure || !strings.Contains(stderr, "nobody.sock") {
			t.Errorf("no service: exit %d\n%s", code, stderr)
		}
	})
	t.Run("busy slot", func(t *testing.T) {
		t.Parallel()
		a := startAgent(t, "--echo", "--startup", "200ms", "--work", "4s", "--stream", "200ms")
		first := cliCmd(context.Background(), a.sendArgs(append(quickWait, "--server", "unix:"+sock, "--role", "tester", "--prompt", "first")...)...)
		var ferr testkit.Buffer
		first.Stderr = &ferr
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		waitOutput(t, &ferr, "accepted by the service")
		_, stderr, code := cli(t, "", a.sendArgs(append(quickWait, "--server", "unix:"+sock, "--role", "tester", "--prompt", "second")...)...)
		if code != exitFailure || !strings.Contains(stderr, "busy") {
			t.Errorf("second send to a busy slot: exit %d\n%s", code, stderr)
		}
		if err := first.Wait(); err != nil {
			t.Fatalf("the first send: %v\n%s", err, ferr.String())
		}
	})
	t.Run("status and watch", func(t *testing.T) {
		t.Parallel()
		a := startAgent(t, quickAgent...)
		local, _, lcode := cli(t, "", "status", "--socket", a.srv.Socket, "--target", a.pane.Target())
		remote, stderr, rcode := cli(t, "", "status", "--server", "unix:"+sock, "--socket", a.srv.Socket, "--target", a.pane.Target())
		var lj, rj any
		json.Unmarshal([]byte(local), &lj)
		json.Unmarshal([]byte(remote), &rj)
		if lcode != exitOK || rcode != exitOK || !reflect.DeepEqual(lj, rj) || lj == nil {
			t.Fatalf("status local (exit %d) %s through the service (exit %d) %s%s", lcode, local, rcode, remote, stderr)
		}
		_, _, code := cli(t, "", "status", "--server", "unix:"+sock, "--socket", a.srv.Socket, "--target", "%99")
		if code != exitTerminal {
			t.Fatalf("status of a gone pane through the service: exit %d", code)
		}
		// watch: a line for the pane, and the board as JSON lines.
		for _, args := range [][]string{{"--target", a.pane.Target()}, nil} {
			w := cliCmd(context.Background(), append([]string{"watch", "--server", "unix:" + sock, "--socket", a.srv.Socket, "--interval", "200ms"}, args...)...)
			var out testkit.Buffer
			w.Stdout = &out
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			waitOutput(t, &out, "idle")
			w.Process.Signal(os.Interrupt)
			if err := w.Wait(); err != nil {
				t.Fatalf("watch %v: %v\n%s", args, err, out.String())
			}
			if args == nil && !strings.Contains(out.String(), `"pane":"`+a.pane.Target()+`"`) {
				t.Fatalf("the board through the service:\n%s", out.String())
			}
		}
	})
}

// The service is killed (SIGKILL) while five dispatches are in flight —
// four waiting on their agents, one accepted and queued behind another on
// the same slot, never pasted. The history read from its folder still
// lists all five; a new service on the same folder ends each as it would
// have: its own answer, its prompt pasted once, one archived response each.
// The agents ask for approval before they write (and the test approves
// only after the restart), so no turn can end before the kill.
func TestServiceKilledWithDispatchesInFlightFinishesThemAll(t *testing.T) {
	t.Parallel()
	dir, sock := serveDirs(t)
	s := startServe(t, dir, sock)
	ctx := context.Background()
	roles := []string{"analyst", "analyst_review", "programmer", "tester"}
	var agents []*agent
	for range roles {
		agents = append(agents, startAgent(t, "--scenario", "asks", "--echo", "--startup", "300ms", "--work", "300ms", "--stream", "300ms"))
	}
	ids := map[string]string{} // id → the prompt
	for i, role := range roles {
		v, err := s.client.Submit(ctx, submitTo(agents[i], role, "kill test "+role, false))
		if err != nil {
			t.Fatal(err)
		}
		ids[v.ID] = "kill test " + role
	}
	queued, err := s.client.Submit(ctx, submitTo(agents[0], "analyst", "queued behind the analyst", true))
	if err != nil {
		t.Fatal(err)
	}
	ids[queued.ID] = "queued behind the analyst"
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Working as the state files have it: the service learns of a
		// transition before it writes the checkpoint, and a kill between
		// the two leaves the file one state behind.
		working := 0
		kept, _, _ := serve.History(dir, serve.Filter{})
		for _, v := range kept {
			if _, ok := ids[v.ID]; ok && v.State == "Working" {
				working++
			}
		}
		if working == len(roles) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d dispatches working", working)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.kill()

	out, stderr, code := cli(t, "", "history", "--state-dir", dir, "--json")
	if code != exitOK || strings.Count(out, "\n") != len(ids) {
		t.Fatalf("history after the kill: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, `"state":"Accepted"`) || strings.Count(out, `"state":"Working"`) != len(roles) {
		t.Fatalf("history after the kill does not show the dispatches where they were:\n%s", out)
	}

	s2 := startServe(t, dir, sock)
	// Approve every question the agents ask from now on.
	actx, stopApproving := context.WithCancel(ctx)
	defer stopApproving()
	for _, a := range agents {
		go func() {
			for actx.Err() == nil {
				if snap, err := a.pane.Observe(actx); err == nil && snap.Classification.Status == handoff.StatusWaitingUserAnswer {
					a.pane.SendKeys(actx, "y")
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	for id, prompt := range ids {
		v, err := serve.Wait(ctx, s2.client, id)
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != "done" || *v.Exit != 0 || !v.Whole || v.Content != prompt+"\n" {
			t.Errorf("%s after the restart: %+v\n%s", prompt, v, s2.stderr.String())
		}
	}
	for i, a := range agents {
		screen := a.screen(t)
		if n := strings.Count(screen, "kill test "+roles[i]); n != 1 {
			t.Errorf("%s's prompt is on its pane %d times", roles[i], n)
		}
		if i == 0 && strings.Count(screen, "queued behind the analyst") != 1 {
			t.Errorf("the queued prompt is on the pane %d times", strings.Count(screen, "queued behind the analyst"))
		}
		archived, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*.md"))
		want := 1
		if i == 0 {
			want = 2
		}
		if len(archived) != want {
			t.Errorf("%s: archived %v", roles[i], archived)
		}
	}
	out, _, _ = cli(t, "", "history", "--server", "unix:"+sock, "--state", "Done")
	if strings.Count(out, "\n") != len(ids) {
		t.Fatalf("history through the service:\n%s", out)
	}
}

// submitTo is a dispatch to a's pane with quick settings.
func submitTo(a *agent, role, prompt string, waitSlot bool) serve.SubmitBody {
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 250*time.Millisecond, 3*time.Second, 120*time.Second
	return serve.SubmitBody{Pane: dispatchstate.Pane{Target: a.pane.Target(), Socket: a.srv.Socket}, Role: role, Workdir: a.workdir, Prompt: prompt,
		WaitSlot: waitSlot, Config: &cfg}
}

// A coordinator on the command line: three sends to the service with
// --no-wait print their ids; `wait ID…` (--any) wakes when the first ends —
// the one whose agent the test let finish — printing its answer and
// exiting with its exit code, and naming the others as still running;
// `wait --all` returns every answer once the rest are let go.
func TestWaitWakesOnTheFirstOfSeveralDispatches(t *testing.T) {
	t.Parallel()
	dir, sock := serveDirs(t)
	startServe(t, dir, sock)
	gates := make([]string, 3)
	var ids []string
	for i := range gates {
		gates[i] = filepath.Join(t.TempDir(), "finish")
		a := startAgent(t, append([]string{"--work-until", gates[i]}, quickAgent...)...)
		out, errOut, code := cli(t, "", a.sendArgs("--server", "unix:"+sock, "--no-wait", "--poll", "250ms", "--prompt", fmt.Sprintf("task %d", i))...)
		if code != exitOK || strings.TrimSpace(out) == "" {
			t.Fatalf("send --no-wait: exit %d, stdout %q\n%s", code, out, errOut)
		}
		ids = append(ids, strings.TrimSpace(out))
	}
	if err := os.WriteFile(gates[2], nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cli(t, "", append([]string{"wait", "--server", "unix:" + sock}, ids...)...)
	if code != exitOK || out != "task 2\n" || !strings.Contains(errOut, ids[2]+" ") || !strings.Contains(errOut, "still running: "+ids[0]+" "+ids[1]) {
		t.Fatalf("wait --any: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	for _, g := range gates[:2] {
		if err := os.WriteFile(g, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code = cli(t, "", append([]string{"wait", "--all", "--server", "unix:" + sock}, ids...)...)
	if code != exitOK || strings.Count(out, "=== ") != 3 || !strings.Contains(out, "task 0\n") || !strings.Contains(out, "task 1\n") {
		t.Fatalf("wait --all: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if _, errOut, code := cli(t, "", "wait", "--server", "unix:"+sock, "nosuch"); code != exitUsage || !strings.Contains(errOut, "nosuch") {
		t.Fatalf("an unknown id: exit %d, stderr %q", code, errOut)
	}
}

// `ans=$(handoff-fsm wait ID)` takes only an answer: a dispatch that failed
// has its error on stderr and its exit code, nothing on stdout. And
// `wait --timeout` gives up at its limit, exit 6, naming what still runs and
// printing what ended.
func TestWaitKeepsErrorsOffStdoutAndGivesUpAtItsTimeout(t *testing.T) {
	t.Parallel()
	dir, sock := serveDirs(t)
	startServe(t, dir, sock)
	submit := func(a *agent) string {
		t.Helper()
		out, errOut, code := cli(t, "", a.sendArgs("--server", "unix:"+sock, "--no-wait", "--poll", "250ms", "--prompt", "a task")...)
		if code != exitOK || strings.TrimSpace(out) == "" {
			t.Fatalf("send --no-wait: exit %d, stdout %q\n%s", code, out, errOut)
		}
		return strings.TrimSpace(out)
	}
	gate := filepath.Join(t.TempDir(), "finish")
	held := submit(startAgent(t, append([]string{"--work-until", gate}, quickAgent...)...))
	crashed := submit(startAgent(t, "--scenario", "crash", "--startup", "300ms", "--work", "500ms", "--stream", "300ms"))

	out, errOut, code := cli(t, "", "wait", "--server", "unix:"+sock, crashed)
	if code != exitTerminal || out != "" || !strings.Contains(errOut, crashed) || !strings.Contains(errOut, "without an answer: ") {
		t.Fatalf("wait on a dispatch that failed: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}

	out, errOut, code = cli(t, "", "wait", "--server", "unix:"+sock, "--timeout", "1s", held)
	if code != exitTimeout || out != "" || !strings.Contains(errOut, "still running: "+held) {
		t.Fatalf("wait --timeout on a dispatch still working: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}

	out, errOut, code = cli(t, "", "wait", "--all", "--server", "unix:"+sock, "--timeout", "1", crashed, held)
	if code != exitTimeout || out != "=== "+crashed+" (analyst, exit 4)\n" || !strings.Contains(errOut, "still running: "+held) {
		t.Fatalf("wait --all --timeout, one failed and one working: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = cli(t, "", "wait", "--server", "unix:"+sock, "--timeout", "1m", held)
	if code != exitOK || out != "a task\n" {
		t.Fatalf("wait --timeout 1m on a dispatch let go: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}
