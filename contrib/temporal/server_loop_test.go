//go:build temporalserver

package handofftemporal_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"

	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
)

var updateHistory = flag.Bool("update-history", false, "write testdata/loop-history.json from TestTheLoopOnARealServerSendsWorkBackOnce's run")

// The loop as the spec's roles run it, on a real Temporal server with a
// worker per host: each response feeds the next prompt, the analyst review
// that asks for changes sends the analysis back once (two rounds), and each
// dispatch runs on its pane's host. Its history, read from the server,
// replays; -update-history records it as testdata/loop-history.json, which
// TestTheRecordedLoopReplays replays in the gate.
func TestTheLoopOnARealServerSendsWorkBackOnce(t *testing.T) {
	socket, panes, work := loopAgents(t, "CHANGES REQUESTED: say more", nil)
	ts := server(t)
	ts.worker(t, "host-a")
	ts.worker(t, "host-b")
	c := ts.client
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "host-a"}, handofftemporal.Loop,
		loopInput(socket, panes, work, 2))
	if err != nil {
		t.Fatal(err)
	}
	var st handofftemporal.LoopStatus
	if err := run.Get(ctx, &st); err != nil {
		t.Fatal(err)
	}
	sentBackOnce(t, st)

	hist := history(t, c, run.GetID(), run.GetRunID())
	// The history just made replays on the workflow code as it is.
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflow(handofftemporal.Loop)
	if err := replayer.ReplayWorkflowHistory(nil, hist); err != nil {
		t.Errorf("replay of this run's history: %v", err)
	}
	if *updateHistory {
		b, err := protojson.MarshalOptions{Indent: " "}.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "loop-history.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// history reads a workflow's whole history from the server.
func history(t *testing.T, c client.Client, id, runID string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, e)
	}
	return h
}
