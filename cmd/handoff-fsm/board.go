package main

import (
	"context"
	"fmt"
	"io"
)

const boardUsage = `usage: handoff-fsm board [--server ADDR]

Prints a one-time login link to the web board of the running service (serve --http): open it
in a browser on this machine. The link's code is good once, for 10 minutes; the browser
trades it for a session cookie and is sent on to the board.

flags:
`

// runBoardLink asks the service for a login link to its web board.
func runBoardLink(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("board", boardUsage, stderr)
	server := cmd.String("server", "default", "the service: default (its unix socket), unix:PATH, or tcp:HOST:PORT with HANDOFF_TOKEN")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	client, err := serverClient(*server)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	url, err := client.BoardLink(ctx)
	if err != nil {
		return cmd.fail(exitFailure, "%v (is the service running with --http?)", err)
	}
	fmt.Fprintln(stdout, url)
	return exitOK
}
