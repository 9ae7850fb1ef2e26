package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/handoff-fsm/handoff-fsm/team"
)

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
	for _, w := range teamWindowWarnings(ctx, members) {
		fmt.Fprintln(stderr, w)
	}
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
