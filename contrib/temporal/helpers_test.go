package handofftemporal_test

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
)

// needTmux skips on a dev machine without tmux; in CI a missing tmux fails.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but tmux is not installed")
		}
		t.Skip("skipping: tmux is not installed")
	}
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds, once per test binary, the core's handoff-fsm (its
// hidden sim-agent runs in the panes: internal/simagent is not importable
// from this module) and handoff-temporal (the worker and client processes
// the kill tests end with SIGKILL). It returns their paths. Each is built
// as scripts/release.sh builds a release (no cgo, -trimpath), as the core's
// tests build their commands: CI then compiles their dependencies once,
// not once for the release snapshot and again for the tests.
func binaries(t *testing.T) (core, cmd string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "handoff-temporal-bin-")
		if buildErr != nil {
			return
		}
		for _, b := range []struct{ out, dir, pkg string }{
			{"handoff-fsm", "../..", "./cmd/handoff-fsm"}, // in the core's module
			{"handoff-temporal", ".", "./cmd/handoff-temporal"},
			{"testserver", "testserver", "."}, // a module of its own

		} {
			c := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(binDir, b.out), b.pkg)
			c.Dir, c.Env = b.dir, append(os.Environ(), "CGO_ENABLED=0")
			out, err := c.CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "handoff-fsm"), filepath.Join(binDir, "handoff-temporal")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// temporalServer is a real Temporal server (temporaltest, run by the
// testserver command beside the test: see testserver/main.go) and a
// client of it.
type temporalServer struct {
	address, namespace string
	client             client.Client
}

// server starts a real Temporal server: the frontend, history, matching
// and an in-memory SQLite store, in a process of its own that ends with
// the test.
func server(t *testing.T) *temporalServer {
	t.Helper()
	_, _ = binaries(t)
	cmd := exec.Command(filepath.Join(binDir, "testserver"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // it stops when its input closes
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		logf.Close()
	})
	line := make([]byte, 0, 128)
	buf := make([]byte, 1)
	for {
		if _, err := stdout.Read(buf); err != nil {
			t.Fatalf("the test server did not say its address: %v (log in %s)", err, logf.Name())
		}
		if buf[0] == '\n' {
			break
		}
		line = append(line, buf[0])
	}
	addr, ns, _ := strings.Cut(string(line), " ")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: ns, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &temporalServer{address: addr, namespace: ns, client: c}
}

// worker starts an in-process worker on queue, stopped at the end.
func (s *temporalServer) worker(t *testing.T, queue string) {
	t.Helper()
	w := worker.New(s.client, queue, worker.Options{})
	handofftemporal.Register(w, &handofftemporal.Activities{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// agents starts a private tmux server with one simulated agent per
// command (one window each) and returns its socket and each one's pane id.
func agents(t *testing.T, work string, cmds map[string]string) (string, map[string]string) {
	t.Helper()
	names, lines := make([]string, 0, len(cmds)), make([]string, 0, len(cmds))
	for n, c := range cmds {
		names, lines = append(names, n), append(lines, c)
	}
	priv, ids := simtest.StartCommands(t, "handoff-temporal", work, lines...)
	panes := map[string]string{}
	for i, n := range names {
		panes[n] = ids[i]
	}
	time.Sleep(time.Second) // the agents draw their prompts
	return priv.Socket, panes
}

// sim is the command line of a simulated agent working in work.
func sim(core, work string, flags ...string) string {
	return handoff.ShellQuote(core) + " sim-agent --startup 200ms --work 300ms --stream 100ms --cwd " + handoff.ShellQuote(work) + " " + strings.Join(flags, " ")
}

// quick is a config for simulated agents: fast polls, a short grace.
func quick() handoff.Config {
	c := handoff.DefaultConfig()
	c.Poll, c.IdleGrace, c.ResponseTimeout = 200*time.Millisecond, 3*time.Second, 2*time.Minute
	return c
}

// process starts a handoff-temporal process; the test kills it with
// SIGKILL or, at the end, stops it.
func process(t *testing.T, bin string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	log, err := os.Create(filepath.Join(t.TempDir(), "process.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s %s:\n%s", filepath.Base(bin), strings.Join(args, " "), b)
		}
	})
	return cmd
}

// eventually polls cond every 50ms until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
