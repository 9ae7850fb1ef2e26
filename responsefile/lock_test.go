package responsefile_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

func TestSlotIsExclusiveBetweenGoroutines(t *testing.T) {
	work, p, first := heldSlot(t)
	// Many goroutines try at once: every one is refused, at once.
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			start := time.Now()
			s, err := responsefile.Lock(context.Background(), p, "analyst", work, false)
			if s != nil {
				s.Release()
				errs <- errors.New("a second holder got the slot")
				return
			}
			if d := time.Since(start); d > time.Second {
				errs <- fmt.Errorf("refused after %v, not at once", d)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		var busy *responsefile.SlotBusyError
		if !errors.Is(err, responsefile.ErrSlotBusy) || !errors.As(err, &busy) {
			t.Fatalf("second lock: %v, want ErrSlotBusy", err)
		}
		msg := err.Error()
		if busy.PID != os.Getpid() || !strings.Contains(msg, "role analyst") || !strings.Contains(msg, work) ||
			!strings.Contains(msg, fmt.Sprint(os.Getpid())) {
			t.Fatalf("message %q does not name the role, the folder and the holder", msg)
		}
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if err := first.Release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	again, err := responsefile.Lock(context.Background(), p, "analyst", work, false)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again.Release()

	// Another role, or another folder, is another slot.
	other, err := responsefile.Lock(context.Background(), testkit.ResponseFile(t, work, "tester"), "tester", work, false)
	if err != nil {
		t.Fatalf("another role's slot: %v", err)
	}
	other.Release()
}

func TestWaitingForTheSlot(t *testing.T) {
	work, p, first := heldSlot(t)
	got := waiter(p, work)
	select {
	case err := <-got:
		t.Fatalf("the waiter did not wait: %v", err)
	case <-time.After(150 * time.Millisecond):
	}
	first.Release()
	gotSlot(t, got, "the waiter did not get the freed slot")

	// A waiter stops with its context.
	first, _ = responsefile.Lock(context.Background(), p, "analyst", work, false)
	defer first.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := responsefile.Lock(ctx, p, "analyst", work, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting past the context: %v", err)
	}
}

// heldSlot is a work folder, the analyst's response path in it, and that
// slot, held.
func heldSlot(t *testing.T) (work, path string, held *responsefile.Slot) {
	t.Helper()
	work = t.TempDir()
	path = testkit.ResponseFile(t, work, "analyst")
	held, err := responsefile.Lock(context.Background(), path, "analyst", work, false)
	if err != nil {
		t.Fatal(err)
	}
	return work, path, held
}

// childLock holds the slot of path and says so on stdout, until stdin
// closes or the process is killed.
func childLock(path string) error {
	s, err := responsefile.Lock(context.Background(), path, "analyst", "w", false)
	if err != nil {
		return err
	}
	defer s.Release()
	fmt.Printf("locked %d\n", os.Getpid())
	_, err = io.Copy(io.Discard, os.Stdin)
	return err
}

// The lock holds across processes, and the kernel frees it when the holder
// is killed (no stale lock to clean up).
func TestSlotHoldsAcrossProcessesAndDiesWithTheHolder(t *testing.T) {
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			work := t.TempDir()
			p := testkit.ResponseFile(t, work, "analyst")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=lock:"+p)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || line != fmt.Sprintf("locked %d\n", cmd.Process.Pid) {
				t.Fatalf("child said %q (%v)", line, err)
			}
			_, err = responsefile.Lock(context.Background(), p, "analyst", work, false)
			var busy *responsefile.SlotBusyError
			if !errors.As(err, &busy) || busy.PID != cmd.Process.Pid || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) {
				t.Fatalf("lock held by the child: %v, want ErrSlotBusy naming pid %d", err, cmd.Process.Pid)
			}
			// A waiter in this process gets it as soon as the child dies.
			got := waiter(p, work)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			stdin.Close()
			gotSlot(t, got, "the slot of a killed holder was not freed")
		})
	}
}

// waiter starts a Lock of the analyst's slot p that waits for it (and
// releases it at once); the returned channel reports how it ended.
func waiter(p, work string) <-chan error {
	got := make(chan error, 1)
	go func() {
		s, err := responsefile.Lock(context.Background(), p, "analyst", work, true)
		if err == nil {
			s.Release()
		}
		got <- err
	}()
	return got
}

// gotSlot fails the test unless the waiter's Lock, reported on got,
// succeeded within 5 s; notFreed says what it means when it did not come.
func gotSlot(t *testing.T, got <-chan error, notFreed string) {
	t.Helper()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal(notFreed)
	}
}
