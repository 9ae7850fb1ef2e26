package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/loop"
	"github.com/handoff-fsm/handoff-fsm/team"
)

// demoAgentArgs are the simulated agents' timings under up --demo: quick
// turns (the startup race kept), so a demo run of the loop takes seconds.
var demoAgentArgs = []string{"--startup", "500ms", "--work", "1s", "--stream", "300ms"}

// teamFileFlag adds -f FILE to a team command.
func teamFileFlag(fs *flag.FlagSet) *string {
	f := fs.String("file", "", "the team file (default ./"+team.DefaultFile+"; without one, the spec's five roles, each a Codex agent, working in the current folder)")
	fs.StringVar(f, "f", "", "short for --file")
	return f
}

// loadTeam reads the team file given, or ./handoff-team.toml, or falls back
// to the default team.
func loadTeam(path string) (*team.Team, error) {
	if path != "" {
		return team.Load(path)
	}
	if _, err := os.Stat(team.DefaultFile); err == nil {
		return team.Load(team.DefaultFile)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return team.Default(wd)
}

func teamUsage(cmd, synopsis, text string) string {
	return "usage: handoff-fsm " + cmd + " " + synopsis + "\n\n" + text + "\n\nThe team file (TOML) is described in docs/team.md.\n\nflags:\n"
}

// runUp starts the team's agents in tmux and waits until each is ready.
func runUp(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("up", teamUsage("up", "[-f FILE] [--demo]",
		"Starts each agent of the team in a window of its own in the team's tmux session (socket and\n"+
			"session from the file), waits until each shows a ready composer, and prints role, pane,\n"+
			"provider and CLI version. Agents already running are left alone; one whose process died is\n"+
			"restarted. An agent that cannot get ready is named with what its pane shows (exit 1).\n"+
			"--demo runs the built-in simulated agent in place of each CLI: no agent CLI needed."), stderr)
	file := teamFileFlag(fs)
	demo := fs.Bool("demo", false, "run the built-in simulated agent (Codex's screens) in place of each agent's CLI")
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	t, err := loadTeam(*file)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm up: %v\n", err)
		return exitUsage
	}
	o := team.UpOptions{Demo: *demo, DemoArgs: demoAgentArgs}
	// This program runs the simulated agents, and each CLI's turn-end
	// hook calls it (handoff-fsm hook --dir).
	if o.Exe, err = os.Executable(); err != nil {
		if *demo {
			fmt.Fprintf(stderr, "handoff-fsm up: cannot find this program to run the simulated agents: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stderr, "up: cannot find this program (%v): no turn-end hook is wired\n", err)
	}
	o.HookExe = o.Exe
	if strings.Contains(o.Exe, string(filepath.Separator)+"go-build") && !*demo {
		// go run's build is removed when go run exits; the hooks would
		// call a file that is gone.
		fmt.Fprintf(stderr, "up: this program runs from go run's temporary build (%s), which is removed when it exits: no turn-end hook is wired; go install it for the hooks\n", o.Exe)
		o.HookExe = ""
	}
	for _, a := range t.Agents {
		if err := os.MkdirAll(a.Workdir, 0o755); err != nil {
			fmt.Fprintf(stderr, "handoff-fsm up: agent %s: %v\n", a.Role, err)
			return exitFailure
		}
	}
	fmt.Fprintf(stderr, "up: team of %d on tmux -L %s, session %s, work folder %s\n", len(t.Agents), t.Socket, t.Session, t.Workdir)
	members, err := team.Up(ctx, t, o)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tPANE\tPROVIDER\tVERSION\tSTATE\tSTATUS\tHOOK")
	var notes []string
	for _, m := range members {
		if m.Pane == "" {
			continue
		}
		prov := m.Provider
		if m.Demo {
			prov = "codex (simulated)"
		}
		ver := m.Version
		if ver == "" {
			ver = "-"
		}
		hook := "none"
		switch {
		case m.Demo:
			hook = "-"
		case strings.HasPrefix(m.Hook, "not wired ("):
			hook = "not wired (below)"
			notes = append(notes, fmt.Sprintf("up: agent %s: its turn-end hook is %s; its screen and response file decide alone", m.Role, m.Hook))
		case m.Hook != "":
			hook = m.Hook
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Role, m.Pane, prov, ver, m.State, m.Status, hook)
	}
	tw.Flush()
	for _, m := range members {
		if m.Note != "" {
			notes = append(notes, fmt.Sprintf("up: agent %s: %s", m.Role, m.Note))
		}
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, n)
	}
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm up: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "up: ready; watch them: tmux -L %s attach -t %s\n", t.Socket, t.Session)
	return exitOK
}

// runDown ends the team's agents and its session.
func runDown(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("down", teamUsage("down", "[-f FILE]",
		"Ends every agent of the team (each pane's process group and what it started, SIGTERM then\n"+
			"SIGKILL), then the team's tmux session, and its server when nothing else runs there.\n"+
			"Nothing the agents wrote is removed."), stderr)
	file := teamFileFlag(fs)
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	t, err := loadTeam(*file)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm down: %v\n", err)
		return exitUsage
	}
	members, err := team.Down(context.WithoutCancel(ctx), t)
	for _, m := range members {
		fmt.Fprintf(stdout, "%s\t%s\tended\n", m.Role, m.Pane)
	}
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm down: %v\n", err)
		return exitFailure
	}
	if len(members) == 0 {
		fmt.Fprintf(stderr, "down: no agent of the team runs (tmux -L %s, session %s)\n", t.Socket, t.Session)
	}
	return exitOK
}

// runTeamLoop runs the specification's loop on the team.
func runTeamLoop(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", teamUsage("run", "[-f FILE] --task TEXT [--rounds N] [flags]",
		"Runs the specification's loop on the team brought up with `handoff-fsm up`: analyst →\n"+
			"analyst_review → programmer → programmer_review → tester, each answer fed into the next\n"+
			"prompt; a review that does not start with APPROVED sends the work back, up to --rounds\n"+
			"reviews. Progress on stderr, a summary at the end, the tester's report on stdout.\n"+
			"It keeps a run journal (<workdir>/.tmp/handoff-run): run it again with the same task after\n"+
			"Ctrl-C or a crash and it goes on where it stopped, sending no prompt twice. With --server\n"+
			"each step is a dispatch of the service, which keeps it while run is stopped."), stderr)
	file := teamFileFlag(fs)
	task := fs.String("task", "", "what to build (required)")
	taskFile := fs.String("task-file", "", "read the task from this file")
	rounds := fs.Int("rounds", loop.DefaultRounds, "reviews per stage: a review that asks for changes sends the work back, up to this many reviews")
	journal := fs.String("journal", "", "the run journal's folder (default <workdir>/.tmp/handoff-run)")
	server := fs.String("server", "", "run each step as a dispatch of the service (handoff-fsm serve) at unix:PATH or tcp:HOST:PORT, or default (or HANDOFF_SERVER): it keeps the step while it waits")
	def := handoff.DefaultConfig()
	cf := configflag.Add(fs, def, "")
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	if *taskFile != "" {
		b, err := os.ReadFile(*taskFile)
		if err != nil {
			fmt.Fprintf(stderr, "handoff-fsm run: --task-file: %v\n", err)
			return exitUsage
		}
		*task = string(b)
	}
	if strings.TrimSpace(*task) == "" {
		fmt.Fprintln(stderr, "handoff-fsm run: --task (or --task-file) is required")
		return exitUsage
	}
	if *rounds < 1 {
		fmt.Fprintln(stderr, "handoff-fsm run: --rounds must be 1 or more")
		return exitUsage
	}
	if err := handoff.CheckPrompt(*task); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm run: --task: %v\n", err)
		return exitUsage
	}
	cfg, err := cf.Config(def)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm run: %v\n", err)
		return exitUsage
	}
	client, err := serverClient(*server)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm run: %v\n", err)
		return exitUsage
	}
	t, err := loadTeam(*file)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm run: %v\n", err)
		return exitUsage
	}
	found, err := team.Find(ctx, t)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm run: %v\n", err)
		return exitFailure
	}
	agents := map[string]loop.Agent{}
	var missing []string
	for _, r := range loop.Roles {
		m, ok := found[r]
		switch {
		case !ok:
			if _, inTeam := t.Agent(r); !inTeam {
				fmt.Fprintf(stderr, "handoff-fsm run: the team has no %s (the loop needs %s)\n", r, strings.Join(loop.Roles, ", "))
				return exitUsage
			}
			missing = append(missing, r+" (not started)")
		case m.Dead:
			missing = append(missing, r+" (its process exited)")
		default:
			agents[r] = loop.Agent{Target: m.Pane, Provider: providerOf(m), Socket: t.Socket, Workdir: m.Workdir, HookDir: m.HookDir}
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(stderr, "handoff-fsm run: agents not running: %s; start them with handoff-fsm up\n", strings.Join(missing, ", "))
		return exitFailure
	}
	if *journal == "" {
		*journal = filepath.Join(t.Workdir, ".tmp", "handoff-run")
	}
	began := time.Now()
	res, err := loop.Run(ctx, loop.Options{Task: *task, Rounds: *rounds, Agents: agents, Workdir: t.Workdir, Config: cfg,
		Journal: *journal, Log: stderr, Logger: slog.New(slog.NewTextHandler(stderr, nil)), Service: client})
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

// teamStatusFlags adds status's --team and -f FILE.
func teamStatusFlags(fs *flag.FlagSet) (teamMode *bool, file *string) {
	teamMode = fs.Bool("team", false, "the status of every agent of the team (-f FILE, else ./"+team.DefaultFile+")")
	return teamMode, teamFileFlag(fs)
}

// teamStatus prints a line per agent of the team: its pane, provider,
// process and what its provider reads on its screen. An agent that is
// not running exits 4, as status does for a pane that is gone.
func teamStatus(ctx context.Context, file string, stdout, stderr io.Writer) int {
	t, err := loadTeam(file)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitUsage
	}
	members, err := team.Status(ctx, t)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitFailure
	}
	code := exitOK
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tPANE\tPROVIDER\tPROCESS\tSTATUS")
	for _, m := range members {
		pane, process, status := m.Pane, agentProcess(m), string(m.Status)
		if pane == "" {
			pane = "-"
		}
		if m.Pane == "" || m.Dead {
			code, status = exitTerminal, "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Role, pane, providerOf(m), process, status)
	}
	tw.Flush()
	if code != exitOK {
		fmt.Fprintln(stderr, "status: start the agents that are not running with handoff-fsm up (a dead one goes on with its last session where its CLI can)")
	}
	return code
}

// agentProcess says whether an agent's process runs: "pid N", "exited
// (status N)" or "not started".
func agentProcess(m team.Member) string {
	switch {
	case m.Pane == "":
		return "not started"
	case m.Dead && m.Signal > 0:
		return fmt.Sprintf("exited (killed by signal %d)", m.Signal)
	case m.Dead && m.ExitStatus >= 0:
		return fmt.Sprintf("exited (status %d)", m.ExitStatus)
	case m.Dead:
		return "exited"
	}
	return fmt.Sprintf("pid %d", m.PID)
}

// reportDead names the team's agents whose process exited, after a run
// that failed: the step waiting on one ended with a terminal error.
func reportDead(ctx context.Context, t *team.Team, stderr io.Writer) {
	found, err := team.Find(context.WithoutCancel(ctx), t)
	if err != nil {
		return
	}
	for _, r := range t.Roles() {
		if m, ok := found[r]; ok && m.Dead {
			fmt.Fprintf(stderr, "handoff-fsm run: agent %s (pane %s, %s): its process %s; restart it with handoff-fsm up, then run the same command again to go on\n",
				r, m.Pane, m.Provider, agentProcess(m))
		}
	}
}

// providerOf is the provider reading an agent's pane: a simulated agent
// draws Codex's screens whatever the file says.
func providerOf(m team.Member) string {
	if m.Demo {
		return "codex"
	}
	return m.Provider
}
