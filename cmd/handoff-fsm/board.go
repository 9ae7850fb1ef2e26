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
	fs := newFlagSet("board", boardUsage, stderr)
	server := fs.String("server", "default", "the service: default (its unix socket), unix:PATH, or tcp:HOST:PORT with HANDOFF_TOKEN")
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	c, err := serverClient(*server)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm board: %v\n", err)
		return exitUsage
	}
	url, err := c.BoardLink(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm board: %v (is the service running with --http?)\n", err)
		return exitFailure
	}
	fmt.Fprintln(stdout, url)
	return exitOK
}
