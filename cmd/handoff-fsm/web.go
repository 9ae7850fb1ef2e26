package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/serve/web"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// startBoard opens the web board's listener (serve --http): loopback only
// unless allowRemote.
func startBoard(svc *serve.Service, addr string, hosts, sockets []string, token string, allowRemote bool, teams, journals []string) (net.Listener, *web.Board, error) {
	l, err := serve.Listen(serve.Address{Network: "tcp", Addr: addr}, allowRemote)
	if err != nil {
		return nil, nil, err
	}
	// The address as a browser reaches it: the port the system chose for
	// :0, the host as given.
	host, _, _ := net.SplitHostPort(addr)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	servers := []tmuxdriver.Server{{}}
	if len(sockets) > 0 {
		servers = nil
	}
	for _, s := range sockets {
		if strings.Contains(s, "/") {
			servers = append(servers, tmuxdriver.Server{SocketPath: s})
		} else {
			servers = append(servers, tmuxdriver.Server{Socket: s})
		}
	}
	b, err := web.New(svc, web.Options{Addr: net.JoinHostPort(host, port), Hosts: hosts, Token: token, Servers: servers,
		Teams: teams, Journals: journals})
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, b, nil
}

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
