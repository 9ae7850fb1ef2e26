package fsm_test

import (
	"context"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// BenchmarkCoreStep measures one core step: a steady poll (agent still
// working, no transition) and a poll that fires a transition (the agent
// flickers between working and quiet, so every step moves the state).
func BenchmarkCoreStep(b *testing.B) {
	b.Run("steady", func(b *testing.B) {
		c := fsm.NewCore(handoff.DefaultConfig(), t0)
		c.Step(obs(0, handoff.StatusProcessing, fsm.FileAbsent))
		o := obs(1, handoff.StatusProcessing, fsm.FileAbsent)
		b.ReportAllocs()
		for b.Loop() {
			c.Step(o)
		}
	})
	b.Run("transition", func(b *testing.B) {
		cfg := handoff.DefaultConfig()
		cfg.IdleGrace, cfg.ResponseTimeout = time.Hour, 1000*time.Hour
		c := fsm.NewCore(cfg, t0)
		o := [2]fsm.Observation{obs(1, handoff.StatusProcessing, fsm.FileAbsent), obs(2, handoff.StatusIdle, fsm.FileAbsent)}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			c.Step(o[i&1])
			i++
		}
	})
}

// realisticTimeline is a ten-minute dispatch with the spec's defaults: the
// stale idle screen for 3 s, work with spinner flicker and a question, the
// file written near the end, then idle: 300 polls.
func realisticTimeline() []trace.Line {
	lines := []trace.Line{line(0, handoff.StatusIdle), line(3, handoff.StatusProcessing)}
	for s := 40.0; s < 560; s += 60 {
		lines = append(lines, line(s, handoff.StatusCompleted), line(s+4, handoff.StatusProcessing))
	}
	lines = append(lines, line(300, handoff.StatusWaitingUserAnswer), line(310, handoff.StatusProcessing))
	slicesSortByAt(lines)
	return append(lines, fileAt(595, "## Summary\n\nThe analysis, in full.\n"), line(600, handoff.StatusIdle))
}

func slicesSortByAt(l []trace.Line) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j].At < l[j-1].At; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// BenchmarkWaitReplay runs the whole realistic dispatch through the real
// driver on virtual time: 301 polls, each a status read and a file check
// (Lstat while working, a read while quiet), the file read, archived.
func BenchmarkWaitReplay(b *testing.B) {
	lines := realisticTimeline()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		work, p, clk := setup(b)
		b.StartTimer()
		res, err := fsm.Wait(context.Background(), trace.NewScript(lines, clk, p), fsm.Options{
			Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(), Observer: func(fsm.Entry) {},
		})
		if err != nil || res.Elapsed != 600*time.Second || res.Polls != 301 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkTraceReplay is `handoff-fsm replay` minus the JSON printing:
// temp workdir, engine, report.
func BenchmarkTraceReplay(b *testing.B) {
	tr := trace.Trace{Lines: realisticTimeline()}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := trace.Replay(context.Background(), tr, trace.ReplayOptions{Config: handoff.DefaultConfig()})
		if err != nil || rep.Outcome != "done" || rep.At != 600 {
			b.Fatalf("%+v %v", rep, err)
		}
	}
}
