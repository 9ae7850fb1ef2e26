// Command three-agents runs the specification's loop on the public API:
// analyst → analyst_review → programmer → programmer_review → tester, each
// agent in its own tmux pane with its own provider, each response fed into
// the next prompt. A review that does not start with APPROVED sends the work
// back, up to --rounds times. It keeps a run journal and, run again after a
// crash or Ctrl-C, goes on where it stopped: finished steps are read back
// from the journal, and the dispatch that was waiting is resumed from its
// checkpoint without sending its prompt again. The loop itself is package
// loop, which `handoff-fsm run` runs on a team too; this example gives it
// panes that are already running.
//
//	three-agents --socket agents --workdir ~/proj --task "Add a --verbose flag" \
//	  --pane analyst=%1 --pane analyst_review=%2 --pane programmer=%3,claude \
//	  --pane programmer_review=%4 --pane tester=%5
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/loop"
)

// order is the loop's roles in the order it meets them.
var order = loop.Roles

// options configure one run of the loop.
type options struct {
	socket  string
	workdir string
	task    string
	rounds  int
	panes   map[string]dispatchstate.Pane // a pane's socket "" is --socket
	config  handoff.Config
	journal string // folder of the run journal
	log     io.Writer
	// afterStep, when set, is called after each finished step (tests).
	afterStep func(n int, role string)
	// onPoll, when set, sees every observation (tests).
	onPoll func(role string, p fsm.Poll)
}

func main() {
	var o options
	panes := paneFlag{}
	flag.StringVar(&o.socket, "socket", "", "tmux socket name (tmux -L) of the agents' server; default: the default server")
	flag.StringVar(&o.workdir, "workdir", ".", "the project folder (response files under <workdir>/.tmp/agent-responses)")
	flag.StringVar(&o.task, "task", "", "what to build (required)")
	flag.IntVar(&o.rounds, "rounds", 2, "reviews per stage: a review that asks for changes sends the work back, up to this many times")
	flag.StringVar(&o.journal, "journal", "", "run journal folder; default <workdir>/.tmp/three-agents")
	flag.Var(panes, "pane", "role=target[,provider[,socket]] for each of the five roles (provider: codex or claude, default codex; socket: the pane's tmux server, default --socket); roles may share a pane")
	cf := configflag.Add(flag.CommandLine, handoff.DefaultConfig(), "")
	flag.Parse()
	o.panes, o.log = panes, os.Stderr
	var err error
	if o.config, err = cf.Config(handoff.DefaultConfig()); err != nil {
		fmt.Fprintln(os.Stderr, "three-agents:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	result, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "three-agents:", err)
		os.Exit(1)
	}
	fmt.Println(result)
}

// paneFlag collects --pane role=target[,provider[,socket]]
// (dispatchstate.ParseRolePane).
type paneFlag map[string]dispatchstate.Pane

func (f paneFlag) String() string { return fmt.Sprint(map[string]dispatchstate.Pane(f)) }

func (f paneFlag) Set(s string) error {
	role, p, err := dispatchstate.ParseRolePane(s)
	if err == nil {
		f[role] = p
	}
	return err
}

// run runs the loop (package loop) on the panes and returns the tester's
// report.
func run(ctx context.Context, o options) (string, error) {
	if o.task == "" {
		return "", errors.New("--task is required")
	}
	if o.journal == "" {
		o.journal = filepath.Join(o.workdir, ".tmp", "three-agents")
	}
	agents := map[string]loop.Agent{}
	for role, p := range o.panes {
		if p.Socket == "" {
			p.Socket = o.socket
		}
		agents[role] = loop.Agent{Pane: p}
	}
	lo := loop.Options{Task: o.task, Rounds: o.rounds, Agents: agents, Workdir: o.workdir, Config: o.config,
		Journal: o.journal, Log: o.log, Logger: slog.New(slog.NewTextHandler(o.log, nil)), OnPoll: o.onPoll}
	if o.afterStep != nil {
		lo.AfterStep = func(s loop.Step) { o.afterStep(s.N, s.Role) }
	}
	res, err := loop.Run(ctx, lo)
	if err != nil {
		return "", err
	}
	return res.Report, nil
}
