package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkFileWrittenToExit measures how long `send` takes to exit after
// the agent wrote its response file: the simulated agent writes it and goes
// idle about a millisecond later, so the figure is the engine's reaction,
// not the agent's. Side by side: plain polling at the spec's 2 s, and the
// event-driven wait (a watch of the response folder). Each op is one real
// dispatch; the metrics are the median and the worst of the run.
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
			a := startAgent(b, "--echo", "--startup", "300ms", "--work", "700ms", "--stream", "1ms")
			var lat []time.Duration
			for i := 0; i < b.N; i++ {
				// Vary the moment of the write against the poll grid.
				time.Sleep(time.Duration(i%4) * 450 * time.Millisecond)
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
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ms-max")
		})
	}
}
