package handofftemporal_test

import (
	"testing"
	"time"

	"go.temporal.io/sdk/converter"

	handoff "github.com/handoff-fsm/handoff-fsm"
	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// The local cost of a heartbeat per poll: encoding the checkpoint of a
// wait in the Working state with a short journal into the heartbeat's
// payload (what activity.RecordHeartbeat does on every call; the SDK sends
// the latest payload to the server at most every 0.8 heartbeat timeouts).
// Reports the payload's size as bytes/heartbeat.
func BenchmarkHeartbeatDetails(b *testing.B) {
	t0 := time.Date(2026, 11, 23, 21, 0, 0, 0, time.UTC)
	core := fsm.NewCore(handoff.DefaultConfig(), t0)
	core.Step(fsm.Observation{At: t0.Add(2 * time.Second), Status: handoff.StatusProcessing, File: fsm.FileAbsent})
	journal := []fsm.Entry{{At: t0.Add(2 * time.Second), From: handoff.AwaitingStart, To: handoff.Working, Event: handoff.EventActive, Status: handoff.StatusProcessing}}
	cp := fsm.Checkpoint{Core: core.Snapshot(), Journal: journal, ArchiveDir: "/home/me/proj/.tmp/run-20261123-210000", ArchiveSeq: 1,
		Receipt: "ABCDEFGHIJKLMNOPQRST"}
	dc := converter.GetDefaultDataConverter()
	var size int
	b.ReportAllocs()
	for b.Loop() {
		p, err := dc.ToPayloads(handofftemporal.Progress{Wait: &cp})
		if err != nil {
			b.Fatal(err)
		}
		size = p.Size()
	}
	b.ReportMetric(float64(size), "bytes/heartbeat")
}
