package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Bench builds the synthetic captures a provider's classifier is measured
// on: earlier turns as scrollback, then a last turn in a given state. Its
// methods are the benchmarks every provider runs.
type Bench struct {
	Classifier handoff.Classifier
	// Title is the pane title the captures are classified with.
	Title string
	// History is one earlier turn of the scrollback, repeated.
	History []string
	// Tails are the last turn and the chrome below it, for idle, completed
	// and processing (a line with line breaks in it counts as those lines).
	Tails map[handoff.Status][]string
	// NoPrompt ends a capture whose last prompt scrolled out (the worst
	// case: the whole capture is read).
	NoPrompt []string
	// Paint colours a line as the CLI draws it (capture-pane -e).
	Paint func(line string) string
	// Filler is a line of a long answer whose prompt scrolled out: the
	// worst case fills the capture with it.
	Filler string
	// Real is the folder of the real screens (testdata/real-VERSION); each
	// folder under it with a manifest is benchmarked too.
	Real string
}

// Test is every provider's test of its benchmarks: the captures classify
// as the state they are built in (CheckCaptures), and, with
// HANDOFF_CPUTIME=1, the CPU time per Classify call (CPUTime).
func (bn Bench) Test(t *testing.T) {
	t.Run("Captures", bn.CheckCaptures)
	t.Run("CPUTime", bn.CPUTime)
}

// Run is every provider's benchmarks: Classify, NoPrompt (the worst case:
// no prompt, the whole capture read), LastMessage, and Real (the real
// screens, of every terminal).
func (bn Bench) Run(b *testing.B) {
	b.Run("Classify", bn.Classify)
	b.Run("NoPrompt", func(b *testing.B) { bn.ClassifyNoPrompt(b, bn.Filler) })
	b.Run("LastMessage", bn.LastMessage)
	if bn.Real == "" {
		return
	}
	for _, dir := range Dirs(bn.Real) {
		b.Run("Real/"+filepath.Base(dir), func(b *testing.B) { ClassifyReal(b, dir, bn.Classifier) })
	}
}

// BenchStates are the states the benchmarks build captures in.
var BenchStates = []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing}

// Capture is a capture of exactly n lines ending in state, coloured or not.
func (bn Bench) Capture(n int, state handoff.Status, colour bool) string {
	tail := strings.Split(strings.Join(bn.Tails[state], "\n"), "\n")
	lines := make([]string, 0, n)
	for len(lines)+len(tail) < n {
		for _, l := range bn.History {
			if len(lines)+len(tail) == n {
				break
			}
			lines = append(lines, l)
		}
	}
	return bn.join(append(lines, tail...), colour)
}

func (bn Bench) join(lines []string, colour bool) string {
	var b strings.Builder
	for _, l := range lines {
		if colour && l != "" {
			l = bn.Paint(l)
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// CheckCaptures: the benchmarks' captures have the lines they say and
// classify as the state they are built in (a benchmark of a misread screen
// measures nothing).
func (bn Bench) CheckCaptures(t *testing.T) {
	t.Helper()
	for _, n := range []int{25, 200, 20000} {
		for _, state := range BenchStates {
			for _, colour := range []bool{false, true} {
				capture := bn.Capture(n, state, colour)
				if got := strings.Count(capture, "\n"); got != n {
					t.Fatalf("%d-line capture has %d lines", n, got)
				}
				if got := bn.Classifier.Classify(capture, bn.Title); got.Status != state {
					t.Errorf("%d lines, colour %v: %q (%s), want %q", n, colour, got.Status, got.Reason, state)
				}
			}
		}
	}
}

// Classify benchmarks captures of 25 to 20,000 lines, idle, completed and
// processing, plain and coloured. The cost must stay flat as the scrollback
// grows.
func (bn Bench) Classify(b *testing.B) {
	for _, colour := range []bool{false, true} {
		for _, state := range BenchStates {
			for _, n := range []int{25, 200, 1000, 5000, 20000} {
				capture := bn.Capture(n, state, colour)
				b.Run(fmt.Sprintf("%s/colour=%v/lines=%d", state, colour, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(capture)))
					for b.Loop() {
						if got := bn.Classifier.Classify(capture, bn.Title); got.Status != state {
							b.Fatalf("got %q", got.Status)
						}
					}
				})
			}
		}
	}
}

// ClassifyNoPrompt benchmarks the worst case: no prompt on the screen.
func (bn Bench) ClassifyNoPrompt(b *testing.B, filler string) {
	for _, n := range []int{200, 20000} {
		var lines []string
		for len(lines) < n-len(bn.NoPrompt) {
			lines = append(lines, filler)
		}
		capture := bn.join(append(lines, bn.NoPrompt...), false)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bn.Classifier.Classify(capture, "")
			}
		})
	}
}

// LastMessage benchmarks the fallback's extraction on completed captures.
func (bn Bench) LastMessage(b *testing.B) {
	for _, n := range []int{200, 20000} {
		capture := bn.Capture(n, handoff.StatusCompleted, true)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bn.Classifier.LastMessage(capture); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ClassifyReal benchmarks the real screens of dir with their titles.
func ClassifyReal(b *testing.B, dir string, c handoff.Classifier) {
	for _, sc := range LoadScreens(b, dir) {
		capture, err := os.ReadFile(filepath.Join(dir, sc.File))
		if err != nil {
			b.Fatal(err)
		}
		s := string(capture)
		b.Run(strings.TrimSuffix(sc.File, ".txt"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(s, sc.Title)
			}
		})
	}
}

// CPUTime reports the CPU time per Classify call (user+system time of the
// process, so waiting for a busy machine's CPU does not count, unlike a
// benchmark's wall time) as METRIC lines. Set HANDOFF_CPUTIME=1 to run it.
func (bn Bench) CPUTime(t *testing.T) {
	if os.Getenv("HANDOFF_CPUTIME") == "" {
		t.Skip("set HANDOFF_CPUTIME=1 to measure the CPU time per Classify call")
	}
	runtime.GOMAXPROCS(1)
	for _, colour := range []bool{false, true} {
		for _, state := range BenchStates {
			for _, n := range []int{200, 20000} {
				capture := bn.Capture(n, state, colour)
				const iters = 200000
				runtime.GC()
				start := cpuTime()
				for range iters {
					bn.Classifier.Classify(capture, bn.Title)
				}
				per := (cpuTime() - start) / iters
				t.Logf("METRIC cpu_per_classify %s colour=%v lines=%d: %v", state, colour, n, per)
			}
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
