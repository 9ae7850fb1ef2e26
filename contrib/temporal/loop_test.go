package handofftemporal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	handoff "github.com/handoff-fsm/handoff-fsm"
	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
)

// These tests run the workflow in the Temporal SDK's in-process test
// environment (no server) with the real Dispatch activity, which drives
// real tmux panes of simulated agents in real time. What only a server
// does (a dead worker's activity reassigned after its heartbeat timeout, a
// workflow outliving its client's process) is tested against a real server
// by the temporalserver-tagged tests (scripts/temporal-server.sh).

// loopEnv is an in-process test environment with the Loop workflow and
// the real activities registered.
func loopEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(sdkLog())
	env := s.NewTestWorkflowEnvironment()
	// The SDK fails a workflow task that runs over a second as a potential
	// deadlock; on a loaded machine under -race a task of this small
	// workflow has taken longer (and the abandoned task then raced).
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	env.RegisterWorkflow(handofftemporal.Loop)
	env.RegisterActivity(handofftemporal.InTestEnvironment(&handofftemporal.Activities{Logger: quietLog()}))
	// The environment's idle timeout is wall time, and each dispatch takes
	// seconds of it.
	env.SetTestTimeout(3 * time.Minute)
	return env
}

// inProcess is the loop's input for the test environment: its heartbeat
// timeout is enforced in wall time there, and nothing here kills a worker
// to be noticed, so it is the default (30 s) rather than the kill tests' 5 s
// a loaded machine could miss.
func inProcess(in handofftemporal.LoopInput) handofftemporal.LoopInput {
	in.HeartbeatTimeout = 0
	return in
}

// result is the finished workflow's LoopStatus; it fails the test if the
// workflow did not finish or failed.
func result(t *testing.T, env *testsuite.TestWorkflowEnvironment) handofftemporal.LoopStatus {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var st handofftemporal.LoopStatus
	if err := env.GetWorkflowResult(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// The loop as the spec's roles run it: each response feeds the next
// prompt, the analyst review that asks for changes sends the analysis back
// once (two rounds), and each dispatch is scheduled on its pane's host's
// task queue.
func TestTheLoopSendsWorkBackOnce(t *testing.T) {
	socket, panes, work := loopAgents(t, "CHANGES REQUESTED: say more", nil)
	env := loopEnv()
	env.ExecuteWorkflow(handofftemporal.Loop, inProcess(loopInput(socket, panes, work, 2)))
	st := result(t, env)

	sentBackOnce(t, st)
}

// sentBackOnce checks a loop that sent the analysis back once: done with
// the tester's report, its seven steps on their hosts, and the programmer
// (an echo) given the analysis, which carries the task and the review
// that sent it back.
func sentBackOnce(t *testing.T, st handofftemporal.LoopStatus) {
	t.Helper()
	if !st.Done || strings.TrimSpace(st.Result) != "PASS: 12 tests" {
		t.Errorf("result %+v, want done with the tester's report", st)
	}
	want := "analyst@host-a analyst_review@host-a analyst@host-a analyst_review@host-a programmer@host-b programmer_review@host-b tester@host-a"
	if got := roles(st); got != want {
		t.Fatalf("steps %s,\nwant  %s", got, want)
	}
	if prog := st.Steps[4].Content; !strings.Contains(prog, "Add a --verbose flag") || !strings.Contains(prog, "CHANGES REQUESTED: say more") {
		t.Errorf("the programmer's prompt did not carry the revised analysis:\n%s", prog)
	}
}

// An approve signal while the analyst review is under way: the status
// query shows the review running, then the approval pending, and the
// review that asked for changes is taken as approved: the loop goes on to
// the programmer without sending the analysis back, and ends with the
// tester's report, which the query also answers after the end.
func TestAnApproveSignalOverridesTheReviewUnderWay(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "review-may-answer")
	socket, panes, work := loopAgents(t, "CHANGES REQUESTED: say more",
		map[string]string{"analyst_review": "--work-until " + handoff.ShellQuote(gate)})
	env := loopEnv()
	status := func() handofftemporal.LoopStatus {
		t.Helper()
		var st handofftemporal.LoopStatus
		v, err := env.QueryWorkflow(handofftemporal.QueryStatus)
		if err == nil {
			err = v.Get(&st)
		}
		if err != nil {
			t.Fatalf("query %s: %v", handofftemporal.QueryStatus, err)
		}
		return st
	}
	// The listeners run on the environment's event loop, between the
	// workflow's tasks: there the query reads the workflow's state safely.
	var atStart, afterSignal handofftemporal.LoopStatus
	signalled := false
	env.SetOnActivityStartedListener(func(_ *activity.Info, _ context.Context, args converter.EncodedValues) {
		var in handofftemporal.DispatchInput
		if err := args.Get(&in); err != nil {
			t.Error(err)
			return
		}
		if in.Role != "analyst_review" || signalled {
			return
		}
		signalled, atStart = true, status()
		env.SignalWorkflow(handofftemporal.SignalApprove, nil)
		// A second later (wall time: an activity runs), the signal has
		// been handled; the reviewer, held until now, may answer.
		env.RegisterDelayedCallback(func() {
			afterSignal = status()
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Error(err)
			}
		}, time.Second)
	})
	env.ExecuteWorkflow(handofftemporal.Loop, inProcess(loopInput(socket, panes, work, 5)))
	st := result(t, env)

	if atStart.Running != "analyst_review" || atStart.Approved {
		t.Errorf("queried as the review started: %+v, want analyst_review running, nothing approved", atStart)
	}
	if afterSignal.Running != "analyst_review" || !afterSignal.Approved {
		t.Errorf("queried after the signal: %+v, want analyst_review still running, the approval pending", afterSignal)
	}
	want := "analyst@host-a analyst_review@host-a programmer@host-b programmer_review@host-b tester@host-a"
	if got := roles(st); got != want || !st.Done || strings.TrimSpace(st.Result) != "PASS: 12 tests" {
		t.Errorf("steps %s (done %v, result %q),\nwant  %s, done, the tester's report", got, st.Done, st.Result, want)
	}
	if got := status(); !got.Done || len(got.Steps) != 5 || got.Result != st.Result {
		t.Errorf("queried after the end: %+v, want done with five steps and the report", got)
	}
}

// A recorded history of the loop (a run with work sent back once, made by
// TestTheLoopOnARealServerSendsWorkBackOnce -update-history, tag
// temporalserver) replays on the workflow code: a change that breaks
// determinism fails here, and in CI.
func TestTheRecordedLoopReplays(t *testing.T) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(handofftemporal.Loop)
	if err := r.ReplayWorkflowHistoryFromJSONFile(nil, filepath.Join("testdata", "loop-history.json")); err != nil {
		t.Fatal(err)
	}
}
