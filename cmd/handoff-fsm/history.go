package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/serve"
)

const historyUsage = `usage: handoff-fsm history [--server ADDR | --state-dir DIR] [--role R] [--state S]
                           [--since 24h | --since 2026-03-04T05:00:00Z] [--limit N] [--json]

The dispatches of handoff-fsm serve, oldest first: when, which pane and role, what was asked,
how it ended (outcome and exit code) and where the response is archived. It reads the
service's state folder directly (the service need not run), or asks a running service
(--server, or HANDOFF_SERVER). --state is a state name (Working, Done, Failed, Cancelled, …),
running or final.

flags:
`

// runHistory lists the service's dispatches.
func runHistory(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("history", historyUsage, stderr)
	server := cmd.String("server", "", "ask the service at unix:PATH or tcp:HOST:PORT (or HANDOFF_SERVER) instead of reading its folder")
	stateDir := cmd.String("state-dir", "", "the service's state folder (default: the user's state folder)")
	role := cmd.String("role", "", "only this role")
	state := cmd.String("state", "", "only this state (or running, final)")
	since := cmd.String("since", "", "only dispatches accepted since this time (RFC 3339) or this long ago (24h)")
	limit := cmd.Int("limit", 0, "only the newest N")
	asJSON := cmd.Bool("json", false, "one JSON object per dispatch")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	q := url.Values{}
	for k, v := range map[string]string{"role": *role, "state": *state, "since": *since} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if *limit > 0 {
		q.Set("limit", fmt.Sprint(*limit))
	}
	var views []serve.View
	client, err := serverClient(*server)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	if client != nil {
		if views, err = client.List(ctx, q); err != nil {
			return cmd.fail(exitFailure, "%v", err)
		}
	} else {
		f, err := serve.ParseFilter(q, time.Now())
		if err != nil {
			return cmd.usageErr("%v", err)
		}
		dir := *stateDir
		if dir == "" {
			if dir, err = serve.DefaultStateDir(); err != nil {
				return cmd.usageErr("%v", err)
			}
		}
		var bad int
		if views, bad, err = serve.History(dir, f); err != nil {
			return cmd.fail(exitFailure, "%v", err)
		}
		if bad > 0 {
			fmt.Fprintf(stderr, "handoff-fsm history: %d state files could not be read (skipped)\n", bad)
		}
	}
	for _, v := range views {
		if *asJSON {
			if err := writeJSON(stdout, v); err != nil {
				return exitFailure
			}
			continue
		}
		ending := v.State
		if v.Exit != nil {
			ending = fmt.Sprintf("%s exit %d", v.State, *v.Exit)
		}
		prompt, _, _ := strings.Cut(strings.TrimSpace(v.Prompt), "\n")
		if len(prompt) > 60 {
			prompt = prompt[:60] + "…"
		}
		fmt.Fprintf(stdout, "%s  %s  %-17s %-8s %-16s %q", v.Created.Local().Format("2006-01-02 15:04:05"), v.ID, v.Role, v.Target, ending, prompt)
		if v.ArchivedPath != "" {
			fmt.Fprintf(stdout, "  → %s", v.ArchivedPath)
		}
		fmt.Fprintln(stdout)
	}
	return exitOK
}
