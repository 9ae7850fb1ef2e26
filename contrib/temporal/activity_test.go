package handofftemporal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	handoff "github.com/handoff-fsm/handoff-fsm"
	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
)

// heartbeats is a worker interceptor that hands every Progress an
// activity records as its heartbeat to seen, before the SDK throttles what
// it sends (the latest details at most every 0.8 heartbeat timeouts, and
// 30 s in the test environment, which sets none).
type heartbeats struct {
	interceptor.WorkerInterceptorBase
	seen func(handofftemporal.Progress)
}

func (h *heartbeats) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &heartbeatsIn{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, seen: h.seen}
}

type heartbeatsIn struct {
	interceptor.ActivityInboundInterceptorBase
	seen func(handofftemporal.Progress)
}

func (h *heartbeatsIn) Init(out interceptor.ActivityOutboundInterceptor) error {
	return h.Next.Init(&heartbeatsOut{ActivityOutboundInterceptorBase: interceptor.ActivityOutboundInterceptorBase{Next: out}, seen: h.seen})
}

type heartbeatsOut struct {
	interceptor.ActivityOutboundInterceptorBase
	seen func(handofftemporal.Progress)
}

func (h *heartbeatsOut) RecordHeartbeat(ctx context.Context, details ...any) {
	if p, ok := progressOf(details); ok && h.seen != nil {
		h.seen(p)
	}
	h.Next.RecordHeartbeat(ctx, details...)
}

func progressOf(details []any) (handofftemporal.Progress, bool) {
	if len(details) != 1 {
		return handofftemporal.Progress{}, false
	}
	p, ok := details[0].(handofftemporal.Progress)
	return p, ok
}

// activityEnv is an in-process activity environment (no server) with the
// real activities; its activities run under ctx, as a worker's do, and
// each Progress they record as their heartbeat is handed to seen (if set).
func activityEnv(ctx context.Context, seen func(handofftemporal.Progress)) (*testsuite.TestActivityEnvironment, *handofftemporal.Activities) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(sdkLog())
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(worker.Options{BackgroundActivityContext: ctx,
		Interceptors: []interceptor.WorkerInterceptor{&heartbeats{seen: seen}}})
	a := handofftemporal.InTestEnvironment(&handofftemporal.Activities{Logger: quietLog()})
	env.RegisterActivity(a)
	return env, a
}

// A dispatch whose worker died once the agent was at work is taken up by
// another attempt, given the heartbeat's checkpoint as the server would
// give it: the new attempt resumes the wait and pastes nothing. The
// prompt reached the agent once, one response was taken, and the answer
// is the right one. (Reassigning the activity after its heartbeat timed
// out is the server's part: TestAWorkerKilledMidDispatchIsResumedByAnother,
// tag temporalserver.)
func TestADispatchResumesFromItsHeartbeatCheckpoint(t *testing.T) {
	needTmux(t)
	core := coreBinary(t)
	work := t.TempDir()
	release := filepath.Join(work, "release")
	socket, panes := agents(t, work, map[string]string{"programmer": sim(core, work, "--echo", "--work-until", handoff.ShellQuote(release))})
	prompt := "Implement token-7f3a: add a --verbose flag"
	in := handofftemporal.DispatchInput{Pane: dispatchstate.Pane{Target: panes["programmer"], Socket: socket}, Role: "programmer",
		Workdir: work, Prompt: prompt, Config: quick()}

	// The first attempt's worker stops (its activities' context ends) at
	// the first heartbeat of a checkpoint with the agent at work: the
	// prompt was pasted and the wait started.
	worker1, die := context.WithCancel(context.Background())
	defer die()
	var mu sync.Mutex
	var mid *handofftemporal.Progress
	first, acts := activityEnv(worker1, func(p handofftemporal.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if mid == nil && p.Wait != nil && p.Wait.Core.State == handoff.Working {
			mid = &p
			die()
		}
	})
	// (The environment reports the activity's context.Canceled as an
	// application error of that message.)
	if _, err := first.ExecuteActivity(acts.Dispatch, in); err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("the first attempt ended with %v, want it cut off by its worker's end (context canceled)", err)
	}
	mu.Lock()
	checkpoint := *mid
	mu.Unlock()

	second, acts := activityEnv(context.Background(), nil)
	second.SetHeartbeatDetails(checkpoint)
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := second.ExecuteActivity(acts.Dispatch, in)
	if err != nil {
		t.Fatal(err)
	}
	var out handofftemporal.DispatchOutput
	if err := v.Get(&out); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out.Content) != prompt || out.Source != "file" || !out.Resumed {
		t.Errorf("answer %q from %s (resumed %v), want the echo of the prompt from the file, resumed", out.Content, out.Source, out.Resumed)
	}
	if n := transcriptCount(t, socket, panes["programmer"], "token-7f3a"); n != 1 {
		t.Errorf("the prompt shows %d times in the agent's transcript, want once", n)
	}
	if archived, _ := filepath.Glob(filepath.Join(work, ".tmp", "run-*", "*.md")); len(archived) != 1 {
		t.Errorf("archived responses %v, want exactly one", archived)
	}
}
