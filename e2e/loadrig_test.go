package e2e

import (
	"context"
	"math/rand/v2"
	"os"
	"syscall"
	"time"
)

// loadRig is set by scripts/load-rig.sh (HANDOFF_LOAD_RIG=1): the
// delivery rows stop and resume the agent during each send and count,
// at the fake model, what it received of each prompt. Not in the gate:
// under stalls a CLI may take a paste in parts, and the row then passes
// only if the dispatch failed saying so.
func loadRig() bool { return os.Getenv("HANDOFF_LOAD_RIG") != "" }

// stallDuring stops the agent's processes (SIGSTOP) and resumes them
// (SIGCONT) twice at random moments of the next 3 seconds, 0.3–2 s each:
// what a loaded machine does to an agent in the middle of a paste or an
// Enter. Outside the load rig it does nothing. The function it returns
// ends the stalls (every process is resumed first) and says how many
// there were.
func stallDuring(r *rig) func() int {
	if !loadRig() {
		return func() int { return 0 }
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		n := 0
		defer func() { done <- n }()
		for range 2 {
			t := time.NewTimer(time.Duration(rand.Int64N(int64(1500 * time.Millisecond))))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			pids := append([]int{r.cli.PanePID()}, descendantsOf(r.cli.PanePID())...)
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGSTOP)
			}
			n++
			// Not cut short: every stopped process is resumed.
			time.Sleep(300*time.Millisecond + time.Duration(rand.Int64N(int64(1700*time.Millisecond))))
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGCONT)
			}
		}
	}()
	return func() int { cancel(); return <-done }
}

// errText is err's message, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// settle waits, after a dispatch of the load rig, until the model served
// the replies scripted for it (up to 20 s; a dispatch that failed leaves
// them, and they are dropped), then 3 s more: what the CLI submits late
// (a second Enter's message comes after the answer) is counted too.
func settle(r *rig) {
	for deadline := time.Now().Add(20 * time.Second); r.model.Pending() > 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	r.model.Clear()
	time.Sleep(3 * time.Second)
}
