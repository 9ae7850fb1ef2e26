package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/loop"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/team"
)

// runTeamLoop runs the specification's loop on the team.
func runTeamLoop(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("run", teamUsage("run", "[-f FILE] --task TEXT [--rounds N] [flags]",
		"Runs the specification's loop on the team brought up with `handoff-fsm up`: analyst →\n"+
			"analyst_review → programmer → programmer_review → tester, each answer fed into the next\n"+
			"prompt; a review that does not start with APPROVED sends the work back, up to --rounds\n"+
			"reviews. Progress on stderr, a summary at the end, the tester's report on stdout.\n"+
			"It keeps a run journal (<workdir>/.tmp/handoff-run): run it again with the same task after\n"+
			"Ctrl-C or a crash and it goes on where it stopped, sending no prompt twice. With --server\n"+
			"each step is a dispatch of the service, which keeps it while run is stopped."), stderr)
	file := teamFileFlag(cmd.FlagSet)
	task := cmd.String("task", "", "what to build (required)")
	taskFile := cmd.String("task-file", "", "read the task from this file")
	rounds := cmd.Int("rounds", loop.DefaultRounds, "reviews per stage: a review that asks for changes sends the work back, up to this many reviews")
	journal := cmd.String("journal", "", "the run journal's folder (default <workdir>/.tmp/handoff-run)")
	server := cmd.String("server", "", "run each step as a dispatch of the service (handoff-fsm serve) at unix:PATH or tcp:HOST:PORT, or default (or HANDOFF_SERVER): it keeps the step while it waits")
	def := handoff.DefaultConfig()
	cf := configflag.Add(cmd.FlagSet, def, "")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	if err := readTask(task, *taskFile); err != nil {
		return cmd.usageErr("%v", err)
	}
	if *rounds < 1 {
		return cmd.usageErr("--rounds must be 1 or more")
	}
	cfg, err := cf.Config(def)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	client, err := serverClient(*server)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	t, err := loadTeam(*file)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	found, err := team.Find(ctx, t)
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	agents, code := loopAgents(t, found, stderr)
	if code != exitOK {
		return code
	}
	if *journal == "" {
		*journal = filepath.Join(t.Workdir, ".tmp", "handoff-run")
	}
	began := time.Now()
	res, err := loop.Run(ctx, loop.Options{Task: *task, Rounds: *rounds, Agents: agents, Workdir: t.Workdir, Config: cfg,
		Journal: *journal, Log: stderr, Logger: slog.New(slog.NewTextHandler(stderr, nil)), Service: engineOf(client)})
	if res != nil && len(res.Steps) > 0 {
		fmt.Fprintf(stderr, "summary (%s, journal %s):\n", time.Since(began).Round(100*time.Millisecond), *journal)
		res.Summary(stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm run: %v\n", err)
		reportDead(ctx, t, stderr)
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "handoff-fsm run: interrupted; run the same command again to go on where it stopped")
		}
		if o, ok := handoff.FailureOf(err); ok && ctx.Err() == nil {
			return o.Exit // the step's ending, as send's
		}
		return exitFailure
	}
	fmt.Fprint(stdout, res.Report)
	if !strings.HasSuffix(res.Report, "\n") {
		fmt.Fprintln(stdout)
	}
	return exitOK
}

// readTask takes the task from --task-file when given, and checks it.
func readTask(task *string, file string) error {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("--task-file: %w", err)
		}
		*task = string(b)
	}
	if strings.TrimSpace(*task) == "" {
		return errors.New("--task (or --task-file) is required")
	}
	if err := handoff.CheckPrompt(*task); err != nil {
		return fmt.Errorf("--task: %w", err)
	}
	return nil
}

// loopAgents are the loop's agents among the team's running ones. A role
// the team lacks is exit 2; one not started or dead is exit 1, said with
// what to do.
func loopAgents(t *team.Team, found map[string]team.Member, stderr io.Writer) (map[string]loop.Agent, int) {
	agents := map[string]loop.Agent{}
	var missing []string
	for _, r := range loop.Roles {
		m, ok := found[r]
		switch {
		case !ok:
			if _, inTeam := t.Agent(r); !inTeam {
				fmt.Fprintf(stderr, "handoff-fsm run: the team has no %s (the loop needs %s)\n", r, strings.Join(loop.Roles, ", "))
				return nil, exitUsage
			}
			missing = append(missing, r+" (not started)")
		case m.Dead:
			missing = append(missing, r+" (its process exited)")
		default:
			agents[r] = loop.Agent{Pane: dispatchstate.Pane{Target: m.Pane, Provider: providerOf(m), Socket: t.Socket}, Workdir: m.Workdir, HookDir: m.HookDir}
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "handoff-fsm run: agents not running: %s; start them with handoff-fsm up\n", strings.Join(missing, ", "))
		return nil, exitFailure
	}
	return agents, exitOK
}

// engineOf is the service's client as the loop's engine: none (the loop
// runs each step here) when there is no service, never a nil *Client in
// the interface.
func engineOf(c *serve.Client) serve.Engine {
	if c == nil {
		return nil
	}
	return c
}
