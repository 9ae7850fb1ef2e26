package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// Two sends to the same role and workdir: the second is refused at once,
// naming the holder; the first still gets its answer. With --wait-slot the
// second waits and gets its own.
func TestSecondSendToABusySlot(t *testing.T) {
	t.Parallel()
	a := startRelAgent(t, "--echo", "--startup", "300ms", "--work", "5s", "--stream", "200ms")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := cliCmd(ctx, a.sendArgs(append(quickWait, "--prompt", "first")...)...)
	var out1, err1 testkit.Buffer
	first.Stdout, first.Stderr = &out1, &err1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the first holds the slot (it says so once it has sent).
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(err1.String(), "sending to pane") {
		if time.Now().After(deadline) {
			t.Fatalf("the first send did not start:\n%s", err1.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	_, stderr, code := cli(t, "", a.sendArgs(append(quickWait, "--prompt", "second")...)...)
	if code != exitFailure || !strings.Contains(stderr, "response slot busy") || !strings.Contains(stderr, "role analyst") ||
		!strings.Contains(stderr, a.workdir) || !strings.Contains(stderr, fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Fatalf("second send: exit %d\n%s\nwant exit 1 naming the role, the folder and pid %d", code, stderr, first.Process.Pid)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("refused after %v, not at once", d)
	}
	// Meanwhile a third waits for the slot; it must not send before the
	// first is done, or the agent would get two prompts at once.
	third := cliCmd(ctx, a.sendArgs(append(quickWait, "--wait-slot", "--prompt", "third")...)...)
	var out3, err3 testkit.Buffer
	third.Stdout, third.Stderr = &out3, &err3
	if err := third.Start(); err != nil {
		t.Fatal(err)
	}
	if err := first.Wait(); err != nil || out1.String() != "first\n" {
		t.Fatalf("first send: %v, stdout %q\n%s", err, out1.String(), err1.String())
	}
	if err := third.Wait(); err != nil || out3.String() != "third\n" {
		t.Fatalf("waiting send: %v, stdout %q\n%s", err, out3.String(), err3.String())
	}
}
