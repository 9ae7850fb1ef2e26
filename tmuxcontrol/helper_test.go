package tmuxcontrol

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// requireTmux: testkit.RequireTmux.
func requireTmux(t testing.TB) { t.Helper(); testkit.RequireTmux(t) }

var serverSeq atomic.Int64

// server is a private tmux server started for one test.
type server struct {
	t      testing.TB
	socket string
}

// testServer starts a private tmux server (socket hfctl-PID-N, no config
// file) with a session "main" of 100×30 running shellCmd, and kills exactly
// that server, and removes its socket, when the test ends.
func testServer(t testing.TB, shellCmd string) *server {
	t.Helper()
	requireTmux(t)
	s := &server{t: t, socket: fmt.Sprintf("hfctl-%d-%d", os.Getpid(), serverSeq.Add(1))}
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "100", "-y", "30", shellCmd)
	sock := strings.TrimSpace(s.run("display-message", "-p", "-t", "main", "#{socket_path}"))
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", s.socket, "kill-server").Run()
		_ = os.Remove(sock)
	})
	return s
}

// run runs one tmux process on the server and returns its stdout; a
// failure ends the test.
func (s *server) run(args ...string) string {
	s.t.Helper()
	out, err := s.try(args...)
	if err != nil {
		s.t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// try runs one tmux process on the server.
func (s *server) try(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-u", "-L", s.socket}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// pane is the id of the first pane of a target.
func (s *server) pane(target string) string {
	return strings.TrimSpace(s.run("display-message", "-p", "-t", target, "#{pane_id}"))
}

// client starts a control client attached to session main and closes it
// when the test ends.
func (s *server) client(o Options) *Client {
	s.t.Helper()
	o.Socket = s.socket
	if o.Session == "" {
		o.Session = "main"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Start(ctx, o)
	if err != nil {
		s.t.Fatalf("start control client: %v", err)
	}
	s.t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitFor: testkit.WaitFor.
func waitFor(t testing.TB, what string, cond func() bool) { t.Helper(); testkit.WaitFor(t, what, cond) }
