//go:build temporalserver

package handofftemporal_test

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
)

// serverBinaries builds the core's handoff-fsm (the simulated agents),
// handoff-temporal (the worker and client processes the kill tests end
// with SIGKILL) and the test server (a module of its own: the minutes of
// compiling that keep these tests out of the gate), and returns the first
// two's paths.
func serverBinaries(t *testing.T) (core, cmd string) {
	t.Helper()
	goBuild(t, "testserver", "testserver", ".")
	return coreBinary(t), goBuild(t, "handoff-temporal", ".", "./cmd/handoff-temporal")
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
	cmd := exec.Command(goBuild(t, "testserver", "testserver", "."))
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
	handofftemporal.Register(w, &handofftemporal.Activities{Logger: quietLog()})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
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
