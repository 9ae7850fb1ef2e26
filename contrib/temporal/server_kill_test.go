//go:build temporalserver

package handofftemporal_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	handoff "github.com/handoff-fsm/handoff-fsm"
	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
)

// pending is what the server holds of the workflow's one pending
// activity: its attempt and its last heartbeat's details.
func pending(t *testing.T, c client.Client, id string) (attempt int32, p handofftemporal.Progress, ok bool) {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	acts := d.GetPendingActivities()
	if len(acts) != 1 {
		return 0, p, false
	}
	a := acts[0]
	if a.GetHeartbeatDetails() != nil {
		if err := converter.GetDefaultDataConverter().FromPayloads(a.GetHeartbeatDetails(), &p); err != nil {
			t.Fatal(err)
		}
	}
	return a.GetAttempt(), p, true
}

// A worker process killed (SIGKILL) in the middle of a dispatch: Temporal
// notices the heartbeat stopped and gives the activity to a new worker,
// which resumes the wait from the last heartbeat's checkpoint. The prompt
// reached the agent once, and the answer is the right one.
func TestAWorkerKilledMidDispatchIsResumedByAnother(t *testing.T) {
	needTmux(t)
	core, bin := serverBinaries(t)
	work := t.TempDir()
	release := filepath.Join(work, "release")
	socket, panes := agents(t, work, map[string]string{"programmer": sim(core, work, "--echo", "--work-until", handoff.ShellQuote(release))})
	ts := server(t)
	c := ts.client
	workerArgs := []string{"worker", "--queue", "host-k", "--address", ts.address, "--namespace", ts.namespace}
	first := process(t, bin, workerArgs...)

	prompt := "Implement token-7f3a: add a --verbose flag"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const heartbeat = 2 * time.Second
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "host-k"}, handofftemporal.DispatchWorkflow,
		"host-k/"+panes["programmer"], handofftemporal.DispatchInput{Pane: dispatchstate.Pane{Socket: socket}, Role: "programmer", Workdir: work,
			Prompt: prompt, Config: quick()}, heartbeat)
	if err != nil {
		t.Fatal(err)
	}
	// Killed once the server holds a checkpoint of the agent at work: the
	// prompt was pasted and the wait started.
	eventually(t, time.Minute, "no heartbeat of a working agent reached the server", func() bool {
		_, p, ok := pending(t, c, run.GetID())
		return ok && p.Wait != nil && p.Wait.Core.State == handoff.Working
	})
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = first.Process.Wait()
	killed := time.Now()
	process(t, bin, workerArgs...)
	eventually(t, time.Minute, "the activity was not retried after the kill", func() bool {
		attempt, _, ok := pending(t, c, run.GetID())
		return ok && attempt >= 2
	})
	t.Logf("retried %v after the kill (heartbeat timeout %v)", time.Since(killed).Round(10*time.Millisecond), heartbeat)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	var out handofftemporal.DispatchOutput
	if err := run.Get(ctx, &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("answered %v after the kill, attempt %d", time.Since(killed).Round(10*time.Millisecond), out.Attempt)
	if strings.TrimSpace(out.Content) != prompt || out.Source != "file" {
		t.Errorf("answer %q from %s, want the echo of the prompt from the file", out.Content, out.Source)
	}
	if out.Attempt < 2 || !out.Resumed {
		t.Errorf("attempt %d, resumed %v: want a later attempt that resumed", out.Attempt, out.Resumed)
	}
	// Pasted once: the agent's transcript shows the prompt once, and one
	// response was taken (archived) in the whole work folder.
	hist, err := exec.Command("tmux", "-L", socket, "capture-pane", "-p", "-J", "-S", "-", "-t", panes["programmer"]).Output()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(hist), "token-7f3a"); n != 1 {
		t.Errorf("the prompt shows %d times in the agent's transcript, want once:\n%s", n, hist)
	}
	archived, _ := filepath.Glob(filepath.Join(work, ".tmp", "run-*", "*.md"))
	if len(archived) != 1 {
		t.Errorf("archived responses %v, want exactly one", archived)
	}
}

// The orchestrating client (handoff-temporal run) killed while the loop
// runs: the workflow goes on without it, answers queries, takes a signal
// (approve: the review that asked for changes is overridden), and ends
// with the tester's report.
func TestTheLoopGoesOnWhenItsClientIsKilled(t *testing.T) {
	_, bin := serverBinaries(t)
	gate := filepath.Join(t.TempDir(), "review-may-answer")
	socket, panes, work := loopAgents(t, "CHANGES REQUESTED: say more",
		map[string]string{"analyst_review": "--work-until " + handoff.ShellQuote(gate)})
	ts := server(t)
	ts.worker(t, "host-a")
	ts.worker(t, "host-b")
	c := ts.client
	args := []string{"run", "--address", ts.address, "--namespace", ts.namespace,
		"--id", "loop-client-killed", "--task", "Add a --verbose flag", "--rounds", "5", "--workdir", work, "--socket", socket,
		"--poll", "200ms", "--idle-grace", "3s", "--timeout", "2m", "--heartbeat", "5s"}
	in := loopInput(socket, panes, work, 5)
	for _, role := range handofftemporal.Roles {
		args = append(args, "--pane", role+"="+in.Panes[role].Address)
	}
	orchestrator := process(t, bin, args...)
	status := func() handofftemporal.LoopStatus {
		var st handofftemporal.LoopStatus
		v, err := c.QueryWorkflow(context.Background(), "loop-client-killed", "", handofftemporal.QueryStatus)
		if err == nil {
			err = v.Get(&st)
		}
		if err != nil {
			return handofftemporal.LoopStatus{}
		}
		return st
	}
	eventually(t, 2*time.Minute, "the analyst review never started", func() bool { return status().Running == "analyst_review" })
	if err := orchestrator.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = orchestrator.Process.Wait()

	if err := c.SignalWorkflow(context.Background(), "loop-client-killed", "", handofftemporal.SignalApprove, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the approval was not taken", func() bool { return status().Approved })
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var st handofftemporal.LoopStatus
	if err := c.GetWorkflow(ctx, "loop-client-killed", "").Get(ctx, &st); err != nil {
		t.Fatal(err)
	}
	want := "analyst@host-a analyst_review@host-a programmer@host-b programmer_review@host-b tester@host-a"
	if got := roles(st); got != want || !st.Done || strings.TrimSpace(st.Result) != "PASS: 12 tests" {
		t.Errorf("steps %s (done %v, result %q),\nwant  %s, done, the tester's report", got, st.Done, st.Result, want)
	}
	if got := status(); !got.Done || len(got.Steps) != 5 {
		t.Errorf("queried after the end: %+v, want done with five steps", got)
	}
}
