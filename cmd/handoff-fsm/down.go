package main

import (
	"context"
	"fmt"
	"io"

	"github.com/handoff-fsm/handoff-fsm/team"
)

// runDown ends the team's agents and its session.
func runDown(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("down", teamUsage("down", "[-f FILE]",
		"Ends every agent of the team (each pane's process group and what it started, SIGTERM then\n"+
			"SIGKILL), then the team's tmux session, and its server when nothing else runs there.\n"+
			"Nothing the agents wrote is removed."), stderr)
	file := teamFileFlag(cmd.FlagSet)
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	t, err := loadTeam(*file)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	members, err := team.Down(context.WithoutCancel(ctx), t)
	for _, m := range members {
		fmt.Fprintf(stdout, "%s\t%s\tended\n", m.Role, m.Pane)
	}
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	if len(members) == 0 {
		fmt.Fprintf(stderr, "down: no agent of the team runs (tmux -L %s, session %s)\n", t.Socket, t.Session)
	}
	return exitOK
}
