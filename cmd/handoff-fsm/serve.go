package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/serve/web"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

const serveUsage = `usage: handoff-fsm serve [--listen unix:PATH | --listen tcp:127.0.0.1:PORT --token-file F]
                         [--http 127.0.0.1:PORT] [--state-dir DIR] [flags]

One dispatch engine for the host: takes dispatches over HTTP/JSON (POST /v1/dispatches,
GET /v1/dispatches[/{id}[?wait=60s]], DELETE /v1/dispatches/{id}, GET /v1/events,
GET /v1/panes?socket=S), runs each through the same state machine as send, keeps each one in
the state folder before it answers, and after a crash or a restart on the same folder
finishes every dispatch it had accepted without pasting a prompt twice. Every tmux server is
read through one shared tmux control-mode client. docs/serve.md has the API.

Default socket: $XDG_RUNTIME_DIR/handoff-fsm/serve.sock (mode 0600 in a folder only you can
enter); default state folder: $XDG_STATE_HOME/handoff-fsm/serve (~/.local/state/…).
A TCP listener needs a bearer token (--token-file, or HANDOFF_TOKEN).

--http 127.0.0.1:PORT adds the web board (docs/board.md) on a TCP listener of its own, in
front of the same API: a one-time login link is printed at start (handoff-fsm board prints
another), the Host header is checked, a change needs the login's cookie or the bearer token
and must come from the board's own page.

flags:
`

// runServe runs the service until interrupted.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("serve", serveUsage, stderr)
	listen := cmd.String("listen", "", "unix:PATH or tcp:127.0.0.1:PORT (default: unix:"+serve.DefaultSocket()+")")
	stateDir := cmd.String("state-dir", "", "folder of the dispatches (default: the user's state folder)")
	tokenFile := cmd.String("token-file", "", "file holding the bearer token clients must send (required with tcp:; also HANDOFF_TOKEN)")
	allowRemote := cmd.Bool("allow-remote", false, "allow a TCP address that is not a loopback one")
	httpAddr := cmd.String("http", "", "HOST:PORT of the web board (loopback unless --allow-remote); off by default")
	var httpHosts stringsFlag
	cmd.Var(&httpHosts, "http-host", "another host name the web board answers to (the Host header; repeatable): a name of this machine, with --allow-remote")
	var boardSockets stringsFlag
	cmd.Var(&boardSockets, "board-socket", "a tmux server whose panes the web board shows (a socket name as tmux -L takes, or a path as -S; repeatable; default: the default server), besides those the dispatches name")
	var boardTeams, boardJournals stringsFlag
	cmd.Var(&boardTeams, "board-team", "a team file (handoff-fsm up) whose agents, their health and their runs the web board shows (repeatable)")
	cmd.Var(&boardJournals, "board-journal", "a run journal's folder (run --journal DIR) the web board shows, besides each team's (repeatable)")
	control := cmd.Bool("control", true, "read every tmux server through one shared control-mode client (no tmux process per look)")
	events := cmd.Bool("events", true, "watch the response folders so a written file ends its wait at once")
	logFormat := cmd.String("log-format", "text", "stderr format: text or json")
	keep := keepFlag(cmd.FlagSet)
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	addr := "unix:" + serve.DefaultSocket()
	if *listen != "" {
		addr = *listen
	}
	a, err := serve.ParseAddress(addr)
	if err != nil {
		return cmd.usageErr("--listen: %v", err)
	}
	token, err := readToken(*tokenFile)
	if err != nil {
		return cmd.usageErr("--token-file: %v", err)
	}
	if a.Network == "tcp" && token == "" {
		return cmd.usageErr("--listen %s needs a bearer token (--token-file FILE or HANDOFF_TOKEN)", addr)
	}
	dir := *stateDir
	if dir == "" {
		if dir, err = serve.DefaultStateDir(); err != nil {
			return cmd.usageErr("%v", err)
		}
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	switch *logFormat {
	case "text":
	case "json":
		h = slog.NewJSONHandler(stderr, nil)
	default:
		return cmd.usageErr("--log-format %q: want text or json", *logFormat)
	}
	log := slog.New(h)
	svc, err := serve.New(serve.Options{StateDir: dir, Logger: log, Control: *control, Events: *events, Keep: keep.D})
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	defer svc.Close()
	l, err := serve.Listen(a, *allowRemote)
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	return serveOn(ctx, svc, a, l, token, webBoard{addr: *httpAddr, hosts: httpHosts, sockets: boardSockets,
		teams: boardTeams, journals: boardJournals, allowRemote: *allowRemote}, log, []any{"state_dir", dir, "control", *control}, stderr)
}

// webBoard is serve --http's board: its address, the other host names it
// answers to, the tmux servers, team files and run journals it shows.
type webBoard struct {
	addr                            string
	hosts, sockets, teams, journals []string
	allowRemote                     bool
}

// serveOn serves svc's API on l (and the web board, when wb names an
// address) until ctx ends or a server fails, then stops them. listening
// are more attributes of the log line saying it listens.
func serveOn(ctx context.Context, svc *serve.Service, a serve.Address, l net.Listener, token string, wb webBoard, log *slog.Logger, listening []any, stderr io.Writer) int {
	var api http.Handler = svc.Handler(token)
	errc := make(chan error, 2)
	var boardSrv *http.Server
	if wb.addr != "" {
		bl, board, err := startBoard(svc, wb, token)
		if err != nil {
			l.Close()
			fmt.Fprintf(stderr, "handoff-fsm serve: --http: %v\n", err)
			return exitFailure
		}
		if a.Network == "unix" {
			api = board.Links(api)
		}
		defer board.Close()
		boardSrv = &http.Server{Handler: board.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- boardSrv.Serve(bl) }()
		log.Info("handoff-fsm serve: the web board; open this one-time login link (handoff-fsm board prints another)",
			"url", board.LoginURL())
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	log.Info("handoff-fsm serve: listening", append([]any{"listen", a.String()}, listening...)...)
	go func() { errc <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "handoff-fsm serve: %v\n", err)
			return exitFailure
		}
	}
	log.Info("handoff-fsm serve: stopping; unfinished dispatches go on at the next start on this state folder")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if boardSrv != nil {
		// The board's event streams end with the service's context, not
		// on their own: Close, not Shutdown.
		_ = boardSrv.Close()
	}
	_ = srv.Shutdown(sctx)
	if a.Network == "unix" {
		os.Remove(a.Addr)
	}
	return exitOK
}

// readToken reads the bearer token from file, or from HANDOFF_TOKEN when
// file is "".
func readToken(file string) (string, error) {
	if file == "" {
		return os.Getenv("HANDOFF_TOKEN"), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "", fmt.Errorf("%s is empty", file)
	}
	return t, nil
}

// serverClient is the client of the service --server (or HANDOFF_SERVER)
// names; nil when neither does.
func serverClient(flagValue string) (*serve.Client, error) {
	addr := flagValue
	if addr == "" {
		addr = os.Getenv("HANDOFF_SERVER")
	}
	if addr == "" {
		return nil, nil
	}
	if addr == "default" {
		addr = "unix:" + serve.DefaultSocket()
	}
	a, err := serve.ParseAddress(addr)
	if err != nil {
		return nil, fmt.Errorf("--server: %w", err)
	}
	token, err := readToken("")
	if err != nil {
		return nil, err
	}
	return serve.NewClient(a, token), nil
}

// keepFlag declares --keep, how long finished dispatches stay in the
// history (serve.Options.Keep).
func keepFlag(fs *flag.FlagSet) *configflag.Duration {
	return configflag.DurationVar(fs, "keep", serve.DefaultKeep, "how long a finished dispatch stays in the history before it is pruned (what the agent wrote stays archived in its work folder); 0 keeps them all")
}

// startBoard opens the web board's listener (serve --http): loopback only
// unless allowRemote.
func startBoard(svc *serve.Service, wb webBoard, token string) (net.Listener, *web.Board, error) {
	l, err := serve.Listen(serve.Address{Network: "tcp", Addr: wb.addr}, wb.allowRemote)
	if err != nil {
		return nil, nil, err
	}
	// The address as a browser reaches it: the port the system chose for
	// :0, the host as given.
	host, _, _ := net.SplitHostPort(wb.addr)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	servers := []tmuxdriver.Server{{}}
	if len(wb.sockets) > 0 {
		servers = nil
	}
	for _, s := range wb.sockets {
		if strings.Contains(s, "/") {
			servers = append(servers, tmuxdriver.Server{SocketPath: s})
		} else {
			servers = append(servers, tmuxdriver.Server{Socket: s})
		}
	}
	b, err := web.New(svc, web.Options{Addr: net.JoinHostPort(host, port), Hosts: wb.hosts, Token: token, Servers: servers,
		Teams: wb.teams, Journals: wb.journals})
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, b, nil
}
