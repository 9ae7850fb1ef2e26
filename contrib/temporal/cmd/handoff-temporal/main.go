// Command handoff-temporal runs handoff-fsm dispatches as Temporal
// activities and the three-agent loop as a Temporal workflow.
//
//	handoff-temporal worker --queue laptop            # on each host with agent panes
//	handoff-temporal run --queue laptop --task "Add a --verbose flag" --workdir ~/proj \
//	  --pane analyst=laptop/%1 --pane analyst_review=laptop/%2 --pane programmer=gpu-box/%3,claude \
//	  --pane programmer_review=laptop/%4 --pane tester=laptop/%5
//	handoff-temporal status ID | approve ID | stop ID
//
// See docs/temporal.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
)

const usage = `usage: handoff-temporal COMMAND [flags]

commands:
  worker --queue Q      run a worker for this host's panes on task queue Q (until Ctrl-C)
  run [flags]           start the three-agent loop (see run -h) and print the tester's report
  status ID             the loop's status (a query), as JSON
  approve ID            approve the work under review (a signal)
  stop ID               stop the loop before its next dispatch (a signal)

Every command takes --address (host:port of the Temporal frontend; $TEMPORAL_ADDRESS,
else localhost:7233) and --namespace (default "default").
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "worker":
		return runWorker(ctx, args[1:], stderr)
	case "run":
		return runLoop(ctx, args[1:], stdout, stderr)
	case "status", "approve", "stop":
		return runControl(ctx, args[0], args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "handoff-temporal: unknown command %q\n%s", args[0], usage)
	return 2
}

// conn is the flags every command has.
type conn struct{ address, namespace *string }

func connFlags(fs *flag.FlagSet) conn {
	def := os.Getenv("TEMPORAL_ADDRESS")
	if def == "" {
		def = client.DefaultHostPort
	}
	return conn{fs.String("address", def, "the Temporal frontend, host:port"),
		fs.String("namespace", client.DefaultNamespace, "the Temporal namespace")}
}

func (c conn) dial(ctx context.Context) (client.Client, error) {
	return client.DialContext(ctx, client.Options{HostPort: *c.address, Namespace: *c.namespace,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func runWorker(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := connFlags(fs)
	queue := fs.String("queue", "", "this host's task queue: the HOST of the pane addresses (HOST/TARGET) it serves (required)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *queue == "" {
		fmt.Fprintln(stderr, "handoff-temporal worker: --queue is required")
		return 2
	}
	cl, err := c.dial(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-temporal worker: %v\n", err)
		return 1
	}
	defer cl.Close()
	w := worker.New(cl, *queue, worker.Options{})
	handofftemporal.Register(w, &handofftemporal.Activities{Logger: slog.New(slog.NewTextHandler(stderr, nil))})
	if err := w.Start(); err != nil {
		fmt.Fprintf(stderr, "handoff-temporal worker: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "handoff-temporal worker: serving task queue %s on %s (pid %d)\n", *queue, *c.address, os.Getpid())
	<-ctx.Done()
	w.Stop()
	return 0
}

// paneFlag collects --pane role=HOST/TARGET[,provider[,socket]].
type paneFlag map[string]handofftemporal.Pane

func (f paneFlag) String() string { return fmt.Sprint(map[string]handofftemporal.Pane(f)) }

// Set reads one --pane (dispatchstate.ParseRolePane), whose TARGET is
// HOST/TARGET.
func (f paneFlag) Set(s string) error {
	role, p, err := dispatchstate.ParseRolePane(s)
	if err != nil {
		return fmt.Errorf("%w (TARGET: HOST/TARGET)", err)
	}
	if _, _, err := handofftemporal.ParseAddress(p.Target); err != nil {
		return err
	}
	f[role] = handofftemporal.Pane{Address: p.Target, Provider: p.Provider, Socket: p.Socket}
	return nil
}

func runLoop(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := connFlags(fs)
	panes := paneFlag{}
	queue := fs.String("queue", "", "the task queue the workflow runs on (default: the analyst pane's host)")
	id := fs.String("id", "", "the workflow id (default: handoff-loop-<time>)")
	task := fs.String("task", "", "what to build (required)")
	rounds := fs.Int("rounds", 2, "reviews per stage: a review that asks for changes sends the work back, up to this many times")
	workdir := fs.String("workdir", ".", "the project folder, the same path on every host")
	socket := fs.String("socket", "", "tmux socket name (tmux -L) of the panes whose --pane names none")
	fs.Var(panes, "pane", "role=HOST/TARGET[,provider[,socket]] for each of the five roles")
	cf := configflag.Add(fs, handoff.DefaultConfig(), "")
	heartbeat := fs.Duration("heartbeat", 30*time.Second, "heartbeat timeout: how long a dead worker goes unnoticed")
	detach := fs.Bool("detach", false, "print the workflow id and return once it started")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *task == "" {
		fmt.Fprintln(stderr, "handoff-temporal run: --task is required")
		return 2
	}
	abs, err := filepath.Abs(*workdir)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-temporal run: %v\n", err)
		return 2
	}
	for _, r := range handofftemporal.Roles {
		p, ok := panes[r]
		if !ok {
			fmt.Fprintf(stderr, "handoff-temporal run: no --pane for role %s (want all of %s)\n", r, strings.Join(handofftemporal.Roles, ", "))
			return 2
		}
		p.Workdir = abs
		if p.Socket == "" {
			p.Socket = *socket
		}
		panes[r] = p
	}
	if *queue == "" {
		*queue, _, _ = handofftemporal.ParseAddress(panes["analyst"].Address)
	}
	if *id == "" {
		*id = "handoff-loop-" + time.Now().UTC().Format("20060102-150405")
	}
	cfg, err := cf.Config(handoff.DefaultConfig())
	if err != nil {
		fmt.Fprintf(stderr, "handoff-temporal run: %v\n", err)
		return 2
	}
	in := handofftemporal.LoopInput{Task: *task, Rounds: *rounds, Panes: panes, Config: cfg, HeartbeatTimeout: *heartbeat}
	cl, err := c.dial(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-temporal run: %v\n", err)
		return 1
	}
	defer cl.Close()
	wr, err := cl.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: *id, TaskQueue: *queue}, handofftemporal.Loop, in)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-temporal run: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "handoff-temporal run: started workflow %s (run %s) on task queue %s\n", wr.GetID(), wr.GetRunID(), *queue)
	if *detach {
		fmt.Fprintln(stdout, wr.GetID())
		return 0
	}
	var st handofftemporal.LoopStatus
	if err := wr.Get(ctx, &st); err != nil {
		fmt.Fprintf(stderr, "handoff-temporal run: %v\n", err)
		return 1
	}
	if st.Stopped {
		fmt.Fprintln(stderr, "handoff-temporal run: stopped by signal")
		return 1
	}
	fmt.Fprintln(stdout, st.Result)
	return 0
}

func runControl(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := connFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "handoff-temporal %s: want one workflow id\n", cmd)
		return 2
	}
	id := fs.Arg(0)
	cl, err := c.dial(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-temporal %s: %v\n", cmd, err)
		return 1
	}
	defer cl.Close()
	switch cmd {
	case "status":
		v, err := cl.QueryWorkflow(ctx, id, "", handofftemporal.QueryStatus)
		if err != nil {
			fmt.Fprintf(stderr, "handoff-temporal status: %v\n", err)
			return 1
		}
		var st handofftemporal.LoopStatus
		if err := v.Get(&st); err != nil {
			fmt.Fprintf(stderr, "handoff-temporal status: %v\n", err)
			return 1
		}
		b, _ := json.MarshalIndent(st, "", "  ")
		fmt.Fprintln(stdout, string(b))
	case "approve":
		err = cl.SignalWorkflow(ctx, id, "", handofftemporal.SignalApprove, nil)
	case "stop":
		err = cl.SignalWorkflow(ctx, id, "", handofftemporal.SignalStop, nil)
	}
	if err != nil {
		fmt.Fprintf(stderr, "handoff-temporal %s: %v\n", cmd, err)
		return 1
	}
	return 0
}
