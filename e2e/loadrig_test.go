package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

// loadRig is set by scripts/load-rig.sh (HANDOFF_LOAD_RIG=1): the
// delivery rows stop and resume the agent during each send and count,
// at the fake model, what it received of each prompt. Not in the gate:
// under stalls a CLI may take a paste in parts, and the row then passes
// only if the dispatch failed saying so.
func loadRig() bool { return os.Getenv("HANDOFF_LOAD_RIG") != "" }

// stalls is what stallDuring did: how many stalls it tried, how many
// the kernel reported frozen, for how long in all, in how many of those
// the agent's screen changed all the same, and what went wrong.
type stalls struct {
	tried, frozen, drew int
	held                time.Duration
	states              []string // the pane process's /proc state in each frozen stall
	errs                []string
}

// stallDuring freezes the agent's processes (a cgroup freezer, see
// freezer) twice at random moments of the next 1.5 s, 0.3–2 s each: what
// a loaded machine does to an agent in the middle of a paste or an Enter.
// Outside the load rig it does nothing; in it, on a machine with no
// freezer, the test fails (the rig cannot stall, and does not pretend).
// The function it returns ends the stalls (every process thawed first)
// and says what they were.
func stallDuring(r *rig) func() stalls {
	if !loadRig() {
		return func() stalls { return stalls{} }
	}
	f, err := findFreezer()
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan stalls, 1)
	go func() {
		var s stalls
		defer func() { done <- s }()
		for i := range 2 {
			t := time.NewTimer(time.Duration(rand.Int64N(int64(1500 * time.Millisecond))))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			s.tried++
			stallOnce(r, f, fmt.Sprintf("handoff-stall-%d-%d", os.Getpid(), i), &s)
		}
	}()
	return func() stalls { cancel(); return <-done }
}

// stallOnce freezes the agent for 0.3–2 s, not cut short, and records in
// s whether the kernel froze it and whether its screen changed meanwhile.
func stallOnce(r *rig, f freezer, name string, s *stalls) {
	pane := r.cli.PanePID()
	c, err := f.freeze(name, func() []int { return append([]int{pane}, descendantsOf(pane)...) })
	defer func() {
		if err := c.thaw(); err != nil {
			s.errs = append(s.errs, "thaw: "+err.Error())
		}
	}()
	if err != nil {
		s.errs = append(s.errs, "freeze: "+err.Error())
		return
	}
	frozenAt := time.Now()
	before, _, _ := r.cli.CapturePlain(context.Background())
	s.frozen++
	s.states = append(s.states, procState(pane))
	time.Sleep(300*time.Millisecond + time.Duration(rand.Int64N(int64(1700*time.Millisecond))))
	after, _, _ := r.cli.CapturePlain(context.Background())
	if !c.frozen() {
		s.errs = append(s.errs, "the cgroup was not frozen at the stall's end")
	}
	s.held += time.Since(frozenAt)
	if after != before {
		s.drew++
	}
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
