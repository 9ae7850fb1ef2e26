package claude

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestClassifyCPUTime reports the CPU time per Classify call (user+system
// time of the process, so waiting for a busy machine's CPU does not count,
// unlike a benchmark's wall time). Set HANDOFF_CPUTIME=1 to run it.
func TestClassifyCPUTime(t *testing.T) {
	if os.Getenv("HANDOFF_CPUTIME") == "" {
		t.Skip("set HANDOFF_CPUTIME=1 to measure the CPU time per Classify call")
	}
	runtime.GOMAXPROCS(1)
	c := New()
	for _, colour := range []bool{false, true} {
		for _, state := range []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing} {
			for _, n := range []int{200, 20000} {
				capture := benchCapture(n, state, colour)
				const iters = 200000
				runtime.GC()
				start := cpuTime()
				for range iters {
					c.Classify(capture, "✳ Claude Code")
				}
				per := (cpuTime() - start) / iters
				t.Logf("%s", fmt.Sprintf("METRIC cpu_per_classify %s colour=%v lines=%d: %v", state, colour, n, per))
			}
		}
	}
}
