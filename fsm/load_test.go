package fsm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// simAgent is a simulated agent for the load test: it is idle until it is
// sent a prompt, then works for a number of polls, then (by its kind)
// writes its answer, writes a blank file first, never writes, shows an
// error, or has its polls fail now and then.
type simAgent struct {
	mu     sync.Mutex
	kind   string
	work   int
	polls  int
	stage  int
	prompt string
	answerer
}

func (a *simAgent) Send(_ context.Context, text string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prompt = text
	return nil
}

func (a *simAgent) Status(context.Context) (handoff.Status, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.prompt == "" {
		return handoff.StatusIdle, nil // ready for a prompt
	}
	a.polls++
	n := a.polls
	switch {
	case a.kind == "flaky" && n%3 == 0:
		return "", errors.New("tmux busy")
	case a.kind == "error" && n > a.work:
		return handoff.StatusError, errors.New("the agent shows: boom")
	case n <= a.work:
		return handoff.StatusProcessing, nil
	case a.kind == "never-writes":
		return handoff.StatusIdle, nil
	case a.kind == "blank-first" && a.stage == 0:
		// A blank file, which counts as none; then it works again.
		a.stage++
		return handoff.StatusIdle, os.WriteFile(a.path, []byte("  \n"), 0o644)
	case a.kind == "blank-first" && a.stage == 1:
		a.stage++
		return handoff.StatusProcessing, nil
	}
	return a.status(false)
}

// loadCase is one dispatch of the load test and what it must end with.
type loadCase struct {
	agent *simAgent
	work  string
	want  string // outcome name
}

var loadKinds = []string{"answer", "answer", "answer", "answer", "blank-first", "flaky", "never-writes", "error"}

func loadCases(root string, n int) []loadCase {
	cases := make([]loadCase, n)
	for i := range cases {
		kind := loadKinds[i%len(loadKinds)]
		work := filepath.Join(root, fmt.Sprint(i))
		p, _ := handoff.ResponsePath(work, "analyst")
		want := map[string]string{"never-writes": "no_response_file", "error": "terminal_error"}[kind]
		if want == "" {
			want = "file"
		}
		cases[i] = loadCase{work: work, want: want,
			agent: &simAgent{kind: kind, work: 2 + i%7, answerer: answerer{path: p, answer: fmt.Sprintf("answer %d\n", i)}}}
	}
	return cases
}

// runLoad dispatches every case at once, on the real clock, and checks
// each outcome; it returns the first problem.
func runLoad(cases []loadCase, cfg handoff.Config) error {
	errs := make(chan error, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Go(func() {
			res, err := fsm.SendAndWait(context.Background(), c.agent, c.agent, fmt.Sprintf("task %d", i), fsm.Options{
				Config: cfg, Role: "analyst", Workdir: c.work, Logger: quiet(), Observer: func(fsm.Entry) {},
			})
			got := string(res.Source)
			if err != nil {
				got = handoff.ErrorKind(err)
			}
			switch {
			case got != c.want:
				errs <- fmt.Errorf("dispatch %d (%s): ended %q (%v), want %q", i, c.agent.kind, got, err, c.want)
			case c.want == "file" && res.Content != c.agent.answer:
				errs <- fmt.Errorf("dispatch %d: got %q, want %q", i, res.Content, c.agent.answer)
			case c.want == "file":
				if b, err := os.ReadFile(res.ArchivedPath); err != nil || string(b) != c.agent.answer {
					errs <- fmt.Errorf("dispatch %d: archived %q (%v)", i, b, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func loadConfig() handoff.Config {
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 20*time.Millisecond, 300*time.Millisecond, time.Minute
	return cfg
}

// TestThousandConcurrentDispatches runs 1,000 dispatches at once in one
// process against simulated agents, on the real clock: answers, blank files
// first, flaky polls, agents that never write and agents that fail. Each
// must end as its agent dictates, with its own answer archived.
func TestThousandConcurrentDispatches(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	cases := loadCases(t.TempDir(), n)
	start := time.Now()
	if err := runLoad(cases, loadConfig()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d concurrent dispatches completed correctly in %v", n, time.Since(start).Round(time.Millisecond))
}

// Dispatches to one slot with WaitSlot take turns, and each gets its own
// answer.
func TestConcurrentDispatchesToOneSlotTakeTurns(t *testing.T) {
	work := t.TempDir()
	if err := responsefile.EnsureDir(work); err != nil {
		t.Fatal(err)
	}
	p, _ := handoff.ResponsePath(work, "analyst")
	var wg sync.WaitGroup
	var mu sync.Mutex
	inFlight, most := 0, 0
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			a := &simAgent{kind: "answer", work: 2, answerer: answerer{path: p, answer: fmt.Sprintf("answer %d\n", i)}}
			res, err := fsm.SendAndWait(context.Background(), a, a, "task", fsm.Options{
				Config: loadConfig(), Role: "analyst", Workdir: work, Logger: quiet(), WaitSlot: true,
				OnPoll: func(p fsm.Poll) {
					mu.Lock()
					defer mu.Unlock()
					if p.N == 1 {
						inFlight++
						most = max(most, inFlight)
					}
					if p.Outcome != nil {
						inFlight--
					}
				},
			})
			if err != nil || res.Content != a.answer {
				errs <- fmt.Errorf("dispatch %d: %q, %v", i, res.Content, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if most != 1 {
		t.Fatalf("%d dispatches waited on one slot at once", most)
	}
}

// BenchmarkThousandConcurrentDispatches reports what 1,000 concurrent
// dispatches cost: CPU time and allocated memory per dispatch, on the real
// clock with a 20 ms poll (each dispatch polls 3 to 10 times, or waits out
// its 300 ms grace).
func BenchmarkThousandConcurrentDispatches(b *testing.B) {
	const n = 1000
	cfg := loadConfig()
	var cpu time.Duration
	var alloc uint64
	var wall time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		cases := loadCases(filepath.Join(b.TempDir(), fmt.Sprint(i)), n)
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		c0 := cpuTime()
		w0 := time.Now()
		b.StartTimer()
		if err := runLoad(cases, cfg); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		wall += time.Since(w0)
		cpu += cpuTime() - c0
		runtime.ReadMemStats(&ms1)
		alloc += ms1.TotalAlloc - ms0.TotalAlloc
		b.StartTimer()
	}
	dispatches := float64(b.N * n)
	b.ReportMetric(float64(cpu.Microseconds())/dispatches, "cpu-µs/dispatch")
	b.ReportMetric(float64(alloc)/dispatches, "B/dispatch")
	b.ReportMetric(wall.Seconds()/float64(b.N), "s/1000-dispatches")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
