package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/handoff-fsm/handoff-fsm/team"
)

// demoAgentArgs are the simulated agents' timings under up --demo: quick
// turns (the startup race kept), so a demo run of the loop takes seconds.
var demoAgentArgs = []string{"--startup", "500ms", "--work", "1s", "--stream", "300ms"}

// runUp starts the team's agents in tmux and waits until each is ready.
func runUp(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("up", teamUsage("up", "[-f FILE] [--demo]",
		"Starts each agent of the team in a window of its own in the team's tmux session (socket and\n"+
			"session from the file), waits until each shows a ready composer, and prints role, pane,\n"+
			"provider and CLI version. Agents already running are left alone; one whose process died is\n"+
			"restarted. An agent that cannot get ready is named with what its pane shows (exit 1).\n"+
			"--demo runs the built-in simulated agent in place of each CLI: no agent CLI needed."), stderr)
	file := teamFileFlag(cmd.FlagSet)
	demo := cmd.Bool("demo", false, "run the built-in simulated agent (Codex's screens) in place of each agent's CLI")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	t, err := loadTeam(*file)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	o := team.UpOptions{Demo: *demo, DemoArgs: demoAgentArgs}
	// This program runs the simulated agents, and each CLI's turn-end
	// hook calls it (handoff-fsm hook --dir).
	if o.Exe, err = os.Executable(); err != nil {
		if *demo {
			return cmd.fail(exitFailure, "cannot find this program to run the simulated agents: %v", err)
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
			return cmd.fail(exitFailure, "agent %s: %v", a.Role, err)
		}
	}
	fmt.Fprintf(stderr, "up: team of %d on tmux -L %s, session %s, work folder %s\n", len(t.Agents), t.Socket, t.Session, t.Workdir)
	members, err := team.Up(ctx, t, o)
	printMembers(members, stdout, stderr)
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	fmt.Fprintf(stderr, "up: ready; watch them: tmux -L %s attach -t %s\n", t.Socket, t.Session)
	return exitOK
}

// printMembers prints up's table, a line per agent started or found, and
// then on stderr what each hook or agent needs said.
func printMembers(members []team.Member, stdout, stderr io.Writer) {
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
		if w := windowWarning(m.Provider, m.Version); w != "" && !m.Demo {
			notes = append(notes, fmt.Sprintf("up: agent %s: %s", m.Role, w))
		}
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, n)
	}
}
