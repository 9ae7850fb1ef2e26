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

// One shared client gets the output of the watched pane only: tmux
// forwards nothing of a pane nobody watches, and stops when the watch ends.
func TestSharedForwardsOnlyWatchedPanes(t *testing.T) {
	requireTmux(t)
	ctx := context.Background()
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "hfshared", Command: printer})
	if err != nil {
		t.Fatal(err)
	}
	defer priv.Close(ctx)
	out, err := priv.Run(ctx, nil, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", priv.Pane, printer)
	if err != nil {
		t.Fatal(err)
	}
	watched, other := priv.Pane, strings.TrimSpace(out)
	var fell []error
	var mu sync.Mutex
	sh := tmuxdriver.StartShared(ctx, priv.Server, "", func(err error) { mu.Lock(); fell = append(fell, err); mu.Unlock() })
	defer sh.Close()
	if sh.FellBack() {
		t.Fatalf("control mode did not start: %v", fell)
	}
	hints, stop := sh.Watch(watched)
	// Whatever tmux had queued before the pane was turned off has arrived
	// after a moment; from then on the other pane sends nothing.
	time.Sleep(500 * time.Millisecond)
	before, otherBefore := sh.Outputs(watched), sh.Outputs(other)
	got := 0
	deadline := time.After(10 * time.Second)
	for got < 5 {
		select {
		case <-hints:
			got++
		case <-deadline:
			t.Fatalf("%d hints from the watched pane in 10 s", got)
		}
	}
	time.Sleep(time.Second)
	if sh.Outputs(watched) <= before {
		t.Fatalf("no output of the watched pane reached the client")
	}
	if n := sh.Outputs(other) - otherBefore; n != 0 {
		t.Fatalf("the unwatched pane's output reached the client %d times", n)
	}
	stop()
	time.Sleep(500 * time.Millisecond)
	after := sh.Outputs(watched)
	time.Sleep(time.Second)
	if n := sh.Outputs(watched) - after; n != 0 {
		t.Fatalf("after the watch ended the pane's output reached the client %d times", n)
	}
	// Looks go over the client: its one process, and it reads any pane.
	cl := countControlClients(t, priv.Server)
	if cl != 1 {
		t.Fatalf("%d control clients on the server, want 1", cl)
	}
	if s, err := sh.Runner().Run(ctx, nil, "display-message", "-p", "-t", other, "#{pane_id}"); err != nil || strings.TrimSpace(s) != other {
		t.Fatalf("a command over the shared client: %q %v", s, err)
	}
}

// A server that dies wakes every watcher at once (their waits look now and
// find it gone) and says so once; commands then fail as a tmux process's.
func TestSharedWakesWatchersWhenTheServerDies(t *testing.T) {
	requireTmux(t)
	ctx := context.Background()
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "hfshared"})
	if err != nil {
		t.Fatal(err)
	}
	defer priv.Close(ctx)
	told := make(chan error, 4)
	sh := tmuxdriver.StartShared(ctx, priv.Server, "", func(err error) { told <- err })
	defer sh.Close()
	hints, stop := sh.Watch(priv.Pane)
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
