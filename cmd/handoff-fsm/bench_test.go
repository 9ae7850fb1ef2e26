package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkFileWrittenToExit measures how long `send` takes to exit after
// the agent wrote its response file: the simulated agent writes it and goes
// idle about a millisecond later, so the figure is the engine's reaction,
// not the agent's. Side by side: plain polling at the spec's 2 s, and the
// event-driven wait (a watch of the response folder). Each op is one real
// dispatch; the agent's work varies at random over a poll interval, so the
// write falls anywhere on the poll grid. The metrics are the median and the
// worst of the run, from the file's write and from the agent's idle screen.
//
//	go test -run '^$' -bench FileWrittenToExit -benchtime 10x ./cmd/handoff-fsm
func BenchmarkFileWrittenToExit(b *testing.B) {
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"poll-2s", []string{"--events=false"}},
		{"events", nil},
	} {
		b.Run(mode.name, func(b *testing.B) {
			idleLog := filepath.Join(b.TempDir(), "idle.log")
			a := startAgent(b, "--echo", "--startup", "300ms", "--work", "700ms", "--stream", "1ms", "--work-jitter", "2s", "--idle-log", idleLog)
			var lat, react []time.Duration
			for i := 0; i < b.N; i++ {
				args := append(a.sendArgs("--poll", "2s", "--json"), mode.args...)
				_, stderr, code := cli(b, "", append(args, "--prompt", "bench")...)
				exited := time.Now()
				if code != exitOK {
					b.Fatalf("exit %d\n%s", code, stderr)
				}
				files, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*-analyst.md"))
				if len(files) == 0 {
					b.Fatal("no archived response")
				}
				slices.Sort(files)
				fi, err := os.Stat(files[len(files)-1])
				if err != nil {
					b.Fatal(err)
				}
				// The archive move keeps the write time (mtime).
				lat = append(lat, exited.Sub(fi.ModTime()))
				// The agent's screen went idle a little after the write:
				// from then on the time is the engine's.
				idle, err := lastIdle(idleLog)
				if err != nil {
					b.Fatal(err)
				}
				react = append(react, exited.Sub(idle))
			}
			report := func(ds []time.Duration, unit string) {
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, unit+"-median")
				b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, unit+"-max")
			}
			report(lat, "ms-file-to-exit")
			report(react, "ms-idle-to-exit")
		})
	}
}

// lastIdle reads the last turn end the simulated agent logged.
func lastIdle(path string) (time.Time, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, err
	}
	lines := strings.Fields(string(b))
	if len(lines) == 0 {
		return time.Time{}, fmt.Errorf("%s is empty", path)
	}
	ns, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	return time.Unix(0, ns), err
}
