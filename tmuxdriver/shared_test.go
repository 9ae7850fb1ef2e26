package tmuxdriver_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// printer is a pane command that prints a line every 20 ms forever.
const printer = "i=0; while true; do i=$((i+1)); echo line $i; sleep 0.02; done"

// One shared client carries the looks at every pane of the server (one
// control client, no process), and tmux forwards it no pane output: two
// panes print fifty lines a second and none of it reaches the client.
func TestSharedCarriesLooksAndGetsNoOutput(t *testing.T) {
	ctx := context.Background()
	priv := startPrivate(t, tmuxdriver.PrivateOptions{Prefix: "hfshared", Command: printer})
	out, err := priv.Run(ctx, nil, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", priv.Pane, printer)
	if err != nil {
		t.Fatal(err)
	}
	panes := []string{priv.Pane, strings.TrimSpace(out)}
	// A pane just split has printed nothing yet on a loaded machine: wait
	// (over a tmux process) until both print, so the looks below have
	// something to carry.
	for _, p := range panes {
		waitFor(t, "pane "+p+" to print", func() bool {
			s, err := priv.Run(ctx, nil, "capture-pane", "-p", "-t", p)
			return err == nil && strings.Contains(s, "line ")
		})
	}
	var fell []error
	var mu sync.Mutex
	sh := tmuxdriver.StartShared(ctx, priv.Server, "", func(err error) { mu.Lock(); fell = append(fell, err); mu.Unlock() })
	defer sh.Close()
	if sh.FellBack() {
		t.Fatalf("control mode did not start: %v", fell)
	}
	_, stop := sh.Watch()
	defer stop()
	for _, p := range panes {
		s, err := sh.Runner().Run(ctx, nil, "capture-pane", "-p", "-t", p)
		if err != nil || !strings.Contains(s, "line ") {
			t.Fatalf("a look at %s over the shared client: %q %v", p, s, err)
		}
	}
	time.Sleep(1500 * time.Millisecond)
	for _, p := range panes {
		if n := sh.Outputs(p); n != 0 {
			t.Fatalf("%d %%output notifications of %s reached the client", n, p)
		}
	}
	if cl := countControlClients(t, priv.Server); cl != 1 {
		t.Fatalf("%d control clients on the server, want 1", cl)
	}
}

// A server that dies wakes every watcher at once (their waits look now and
// find it gone) and says so once; commands then fail as a tmux process's.
func TestSharedWakesWatchersWhenTheServerDies(t *testing.T) {
	ctx := context.Background()
	priv := startPrivate(t, tmuxdriver.PrivateOptions{Prefix: "hfshared"})
	told := make(chan error, 4)
	sh := tmuxdriver.StartShared(ctx, priv.Server, "", func(err error) { told <- err })
	defer sh.Close()
	hints, stop := sh.Watch()
	defer stop()
	if err := priv.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-hints:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher was not woken when the server died")
	}
	select {
	case err := <-told:
		if err == nil {
			t.Fatal("told of a fallback without a reason")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the fallback was not reported")
	}
	if _, err := sh.Runner().Run(ctx, nil, "display-message", "-p", "x"); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Fatalf("a command after the server died: %v", err)
	}
	if len(told) != 0 {
		t.Fatalf("the fallback was reported more than once")
	}
}

// countControlClients counts the control-mode clients attached to srv.
func countControlClients(t testing.TB, srv tmuxdriver.Server) int {
	t.Helper()
	out, err := srv.Run(context.Background(), nil, "list-clients", "-F", "#{client_control_mode}")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(out, "1")
}
