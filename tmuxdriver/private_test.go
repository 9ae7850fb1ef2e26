package tmuxdriver_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

func TestPrivateServerStartsAloneAndCloseLeavesNothing(t *testing.T) {
	requireTmux(t)
	ctx := context.Background()
	a, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-test", KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-test"})
	if err != nil {
		a.Close(ctx)
		t.Fatal(err)
	}
	defer b.Close(ctx)
	if a.Socket == b.Socket || a.SocketFile == b.SocketFile {
		t.Fatalf("two private servers share a socket: %s", a.Socket)
	}
	if a.Pane == "" || a.PanePID <= 0 {
		t.Errorf("pane %q pid %d", a.Pane, a.PanePID)
	}
	if out, err := a.Run(ctx, nil, "list-windows", "-F", "#{window_index}"); err != nil || out != "0\n1\n" {
		t.Errorf("KeepAlive: windows %q (%v), want 0 and 1", out, err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.SocketFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s left behind (%v)", a.SocketFile, err)
	}
	if _, err := a.Run(ctx, nil, "list-sessions"); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Errorf("server still answers after Close: %v", err)
	}
	if err := a.Close(ctx); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	// The other server was not touched.
	if _, err := b.Run(ctx, nil, "list-sessions"); err != nil {
		t.Errorf("closing one private server hurt another: %v", err)
	}
}

// NewWindow puts one more command on the server, in its own window of the
// session and in the folder asked for; Close ends it with the rest.
func TestPrivateNewWindowRunsACommandInItsFolder(t *testing.T) {
	ctx := context.Background()
	p := startPrivate(t, tmuxdriver.PrivateOptions{Prefix: "handoff-test", Session: "agents"})
	dir := t.TempDir()
	pane, err := p.NewWindow(ctx, dir, "sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pane, "%") || pane == p.Pane {
		t.Fatalf("pane %q (first pane %s)", pane, p.Pane)
	}
	// tmux reads the pane's folder from its process, which may not have
	// started yet; it shows the folder's real path: compare the folders.
	want, _ := os.Stat(dir)
	var out string
	waitFor(t, "the new pane in window 1 of agents, in "+dir, func() bool {
		out, err = p.Run(ctx, nil, "display-message", "-p", "-t", pane, "#{session_name} #{window_index} #{pane_current_path}")
		where, path, _ := strings.Cut(strings.TrimSpace(out), " 1 ")
		got, statErr := os.Stat(path)
		return err == nil && where == "agents" && statErr == nil && os.SameFile(got, want)
	})
}

// An agent that ignores the hang-up tmux sends when its server dies (as
// Gemini CLI does), with a child of its own and one that left for a
// session of its own: Close ends them all, not only the server.
func TestPrivateCloseEndsProcessesThatIgnoreTheHangUp(t *testing.T) {
	requireTmux(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to look for processes in")
	}
	ctx := context.Background()
	// Durations no other process on the machine uses, to find ours by.
	n := 100000 + rand.IntN(800000)
	args := []string{strconv.Itoa(n), strconv.Itoa(n + 1), strconv.Itoa(n + 2)}
	p, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-test",
		Command: fmt.Sprintf(`trap '' HUP; sleep %s & setsid sleep %s & exec sleep %s`, args[0], args[1], args[2])})
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	deadline := time.Now().Add(5 * time.Second)
	for len(pids) < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		pids = pidsRunning("sleep", args...)
	}
	if len(pids) < 3 {
		p.Close(ctx)
		t.Fatalf("the pane's three sleeps did not start: %v", pids)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] != "Z" {
				t.Errorf("pid %d outlived Close: %s", pid, b)
			}
		}
	}
}

// pidsRunning lists the processes named comm whose last argument is one of
// args.
func pidsRunning(comm string, args ...string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		c, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		argv := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
		if strings.TrimSpace(string(c)) == comm && slices.Contains(args, argv[len(argv)-1]) {
			out = append(out, pid)
		}
	}
	return out
}

// EndSession ends one session's pane processes (one that ignores SIGTERM
// too) and the session, and leaves the server's other sessions alone.
func TestEndSessionEndsOneSessionOnly(t *testing.T) {
	requireTmux(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to look for processes in")
	}
	ctx := context.Background()
	p := startPrivate(t, tmuxdriver.PrivateOptions{Prefix: "handoff-test-team", Session: "agents",
		Command: "trap '' TERM HUP; while :; do sleep 1; done"})
	out, err := p.Run(ctx, nil, "new-session", "-d", "-P", "-F", "#{pane_pid}", "-s", "other", "sleep 86400")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := strconv.Atoi(strings.TrimSpace(out))
	gone := func(pid int) bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
	}
	ended, err := tmuxdriver.EndSession(ctx, p.Server, "agents")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ended, []int{p.PanePID}) || !gone(p.PanePID) {
		t.Errorf("ended %v, want the agents' pane %d gone (gone: %v)", ended, p.PanePID, gone(p.PanePID))
	}
	if out, err := p.Run(ctx, nil, "list-sessions", "-F", "#{session_name}"); err != nil || strings.TrimSpace(out) != "other" {
		t.Errorf("sessions left %q (%v), want the other one", out, err)
	}
	if gone(other) {
		t.Errorf("the other session's process %d was ended", other)
	}
	if ended, err := tmuxdriver.EndSession(ctx, p.Server, "agents"); err != nil || len(ended) != 0 {
		t.Errorf("a session already gone: %v %v", ended, err)
	}
}

// startPrivate starts a private tmux server for the test (skipped where
// tmux is missing), closed when the test ends.
func startPrivate(t *testing.T, o tmuxdriver.PrivateOptions) *tmuxdriver.Private {
	t.Helper()
	requireTmux(t)
	p, err := tmuxdriver.StartPrivate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}
