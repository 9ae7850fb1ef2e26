package handofftemporal

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	hloop "github.com/handoff-fsm/handoff-fsm/loop"
)

// Roles is the loop's order: analyst → analyst_review → programmer →
// programmer_review → tester.
var Roles = hloop.Roles

// The names a client uses with the workflow.
const (
	// QueryStatus answers a LoopStatus.
	QueryStatus = "status"
	// SignalApprove approves the work under review: the stage's next
	// review decision takes it as approved, whatever the reviewer said.
	SignalApprove = "approve"
	// SignalStop stops the loop before its next dispatch (the one under
	// way finishes); the workflow returns what it has, Stopped set.
	SignalStop = "stop"
)

// Pane is one agent: where it runs and how to read it.
type Pane struct {
	// Address is "HOST/TARGET": the worker's task queue (its host) and the
	// tmux pane there (ParseAddress).
	Address    string `json:"address"`
	Socket     string `json:"socket,omitempty"`
	SocketPath string `json:"socket_path,omitempty"`
	Provider   string `json:"provider,omitempty"`
	// Workdir is the project folder on that host (absolute).
	Workdir string `json:"workdir"`
}

// ParseAddress splits "HOST/TARGET" into the host's task queue and the
// pane's tmux target. The host is everything before the first slash.
func ParseAddress(addr string) (queue, target string, err error) {
	queue, target, ok := strings.Cut(addr, "/")
	if !ok || queue == "" || target == "" {
		return "", "", fmt.Errorf("pane address %q: want HOST/TARGET (the host's task queue, then the tmux pane, e.g. laptop/%%3)", addr)
	}
	return queue, target, nil
}

// LoopInput is one run of the loop.
type LoopInput struct {
	Task string `json:"task"`
	// Rounds is how many reviews a stage gets: a review that does not
	// approve sends the work back, up to this many times (2 if zero).
	Rounds int             `json:"rounds"`
	Panes  map[string]Pane `json:"panes"`
	// Config is the engine's settings for every dispatch (the spec's
	// defaults if zero).
	Config handoff.Config `json:"config"`
	// HeartbeatTimeout is how long a dispatch may go without a heartbeat
	// before Temporal retries it elsewhere: the time to notice a dead
	// worker (30s if zero).
	HeartbeatTimeout time.Duration `json:"heartbeat_timeout"`
}

// Step is one finished dispatch of the loop.
type Step struct {
	N       int    `json:"n"`
	Role    string `json:"role"`
	Source  string `json:"source"`
	Content string `json:"content"`
	Attempt int32  `json:"attempt"`
	// Host is the task queue of the worker that ran it.
	Host string `json:"host"`
}

// LoopStatus is what QueryStatus answers, and the workflow's result.
type LoopStatus struct {
	// Running is the role being dispatched to ("" between steps and at the
	// end); Round is the stage's review round (1 for the first review).
	Running string `json:"running,omitempty"`
	Round   int    `json:"round,omitempty"`
	Steps   []Step `json:"steps"`
	// Result is the tester's report, once there is one.
	Result   string `json:"result,omitempty"`
	Approved bool   `json:"approved,omitempty"` // an approve signal is pending
	Stopped  bool   `json:"stopped,omitempty"`
	Done     bool   `json:"done,omitempty"`
}

// ErrStopped is the reason a stopped loop gives (the workflow itself ends
// without error; LoopStatus.Stopped says it was stopped).
var ErrStopped = errors.New("stopped by signal")

// Loop is the specification's loop as a workflow: each role's response
// feeds the next prompt, a review that does not start with APPROVED sends
// the work back (up to Rounds reviews), every dispatch an activity on its
// pane's host. The workflow's state survives the client and the workers:
// QueryStatus reports where it stands, SignalApprove and SignalStop steer it.
func Loop(ctx workflow.Context, in LoopInput) (LoopStatus, error) {
	l := &loop{in: in, status: LoopStatus{Steps: []Step{}}}
	if l.in.Rounds <= 0 {
		l.in.Rounds = 2
	}
	for _, r := range Roles {
		p, ok := in.Panes[r]
		if !ok {
			return l.status, temporal.NewNonRetryableApplicationError(fmt.Sprintf("no pane for role %s (want all of %s)", r, strings.Join(Roles, ", ")), ErrTypeBadInput, nil)
		}
		if _, _, err := ParseAddress(p.Address); err != nil {
			return l.status, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBadInput, nil)
		}
	}
	if err := workflow.SetQueryHandler(ctx, QueryStatus, func() (LoopStatus, error) { return l.status, nil }); err != nil {
		return l.status, err
	}
	approve := workflow.GetSignalChannel(ctx, SignalApprove)
	stop := workflow.GetSignalChannel(ctx, SignalStop)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(approve, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil); l.status.Approved = true })
			sel.AddReceive(stop, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil); l.status.Stopped = true })
			sel.Select(ctx)
		}
	})

	// The steps and gates are package loop's, as handoff-fsm run's; each
	// step is an activity on its pane's host.
	result, err := hloop.Flow{Task: in.Task, Rounds: l.in.Rounds,
		Ask: func(role, prompt string, _ bool) (string, error) { return l.ask(ctx, role, prompt) },
		Round: func(r int) {
			l.status.Round = r
			if r == 0 {
				l.status.Approved = false
			}
		},
		Approve: func() bool { return l.status.Approved },
	}.Run()
	if err == nil {
		l.status.Result = result
	}
	if errors.Is(err, ErrStopped) {
		return l.status, nil
	}
	if err != nil {
		return l.status, err
	}
	l.status.Done = true
	return l.status, nil
}

type loop struct {
	in     LoopInput
	status LoopStatus
}

// Approves reports whether a review's first line approves (loop.IsApproved).
func Approves(review string) bool { return hloop.IsApproved(review) }

// ask dispatches one step to the role's pane, on its host's queue.
func (l *loop) ask(ctx workflow.Context, role, prompt string) (string, error) {
	if l.status.Stopped {
		return "", ErrStopped
	}
	p := l.in.Panes[role]
	queue, target, _ := ParseAddress(p.Address) // checked at the start
	l.status.Running = role
	out, err := DispatchOn(ctx, queue, DispatchInput{Pane: dispatchstate.Pane{Target: target, Socket: p.Socket, SocketPath: p.SocketPath,
		Provider: p.Provider}, Role: role, Workdir: p.Workdir, Prompt: prompt, Config: l.in.Config}, l.in.HeartbeatTimeout)
	l.status.Running = ""
	if err != nil {
		return "", fmt.Errorf("step %d %s: %w", len(l.status.Steps)+1, role, err)
	}
	l.status.Steps = append(l.status.Steps, Step{N: len(l.status.Steps) + 1, Role: role, Source: out.Source, Content: out.Content, Attempt: out.Attempt, Host: out.Queue})
	return out.Content, nil
}

// DispatchOn runs the Dispatch activity on queue (the pane's host) and
// waits for it. The activity may take the response timeout plus the busy
// wait and a minute; heartbeat (30s if zero) is how long a dead worker
// goes unnoticed. Retryable failures are retried every few seconds;
// non-retryable ones (the table's outcomes) end it.
func DispatchOn(ctx workflow.Context, queue string, in DispatchInput, heartbeat time.Duration) (DispatchOutput, error) {
	if heartbeat <= 0 {
		heartbeat = 30 * time.Second
	}
	cfg := in.Config.WithDefaults()
	limit := 31 * time.Minute
	if cfg.Validate() == nil {
		limit = cfg.ResponseTimeout + cfg.BusyWait + time.Minute
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: limit,
		HeartbeatTimeout:    heartbeat,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: 10 * time.Second, MaximumAttempts: 20},
	})
	var a *Activities
	var out DispatchOutput
	err := workflow.ExecuteActivity(ctx, a.Dispatch, in).Get(ctx, &out)
	return out, err
}

// DispatchWorkflow is a single dispatch as a workflow: the activity on the
// pane's host (Address "HOST/TARGET"; in.Target is taken from it).
func DispatchWorkflow(ctx workflow.Context, address string, in DispatchInput, heartbeat time.Duration) (DispatchOutput, error) {
	queue, target, err := ParseAddress(address)
	if err != nil {
		return DispatchOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBadInput, nil)
	}
	in.Target = target
	return DispatchOn(ctx, queue, in, heartbeat)
}
