package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/mcpserver"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/version"
)

const mcpUsage = `usage: handoff-fsm mcp [--server unix:PATH] [--socket S] [--workdir DIR] [--provider P] [flags]

An MCP server on stdin/stdout for a supervising agent (Claude Code, Codex, Gemini CLI):
its tools hand a prompt to another agent in a tmux pane and return its answer.

  handoff          target, socket, role, workdir, prompt, provider: send, wait, return the answer
                   (progress notifications: each transition); an error result says how it ended
  assign           the same arguments: send and return a dispatch id at once
  dispatch_status  id, wait_seconds: a dispatch's state, and its answer once done
  list_panes       socket, provider: every pane, its provider and status
  wait_any         ids, all: wait for the first of several assigned dispatches to end (or all),
                   woken by its end, not by polling; its answer and the ids still running

Every call is one dispatch of the engine: the slot and pane locks, the archive, the outcome
and its exit meaning. In this process by default (its dispatches kept in --state-dir), or
through a running handoff-fsm serve (--server unix:PATH, or HANDOFF_SERVER). Arguments a
call leaves out take the flags' values; workdir defaults to the current folder. Logs go to
stderr. Set it up with: handoff-fsm install claude|codex|copilot|gemini (docs/mcp.md).

flags:
`

// runMCP serves the MCP tools on stdin/stdout until the client closes
// them (or the process is interrupted).
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("mcp", mcpUsage, stderr)
	server := cmd.String("server", "", "dispatch through the service at unix:PATH or tcp:HOST:PORT (default: in this process; also HANDOFF_SERVER)")
	stateDir := cmd.String("state-dir", "", "in-process mode: folder of the dispatches (default: a new folder per run under the user's state folder, …/handoff-fsm/mcp/)")
	socket := cmd.String("socket", "", "tmux socket name (-L) for calls that give none")
	workdir := cmd.String("workdir", "", "work folder for calls that give none (default: the current folder)")
	prov := cmd.String("provider", provider.Default, "agent CLI for calls that give none: "+strings.Join(provider.Names(), ", ")+
		", or auto (each provider recognises its own pane)")
	logFile := cmd.String("log-file", "", "append the server's log to this file too (agent CLIs hide an MCP server's stderr)")
	control := cmd.Bool("control", true, "in-process mode: read each tmux server through one shared control-mode client")
	keep := keepFlag(cmd.FlagSet)
	cf := configflag.Add(cmd.FlagSet, handoff.DefaultConfig(), "")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	if _, err := provider.Lookup(*prov); err != nil && *prov != provider.Auto {
		return cmd.usageErr("--provider: %v (or auto)", err)
	}
	cfg, err := cf.Config(handoff.DefaultConfig())
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	dir, err := filepath.Abs(*workdir) // "" is the current folder
	if err != nil {
		return cmd.usageErr("--workdir: %v", err)
	}
	logTo := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return cmd.usageErr("--log-file: %v", err)
		}
		defer f.Close()
		logTo = io.MultiWriter(stderr, f)
	}
	log := slog.New(slog.NewTextHandler(logTo, nil))
	var engine mcpserver.Engine
	client, err := serverClient(*server)
	switch {
	case err != nil:
		return cmd.usageErr("%v", err)
	case client != nil:
		engine = client
	default:
		sd := *stateDir
		if sd == "" {
			if sd, err = defaultMCPStateDir(time.Now()); err != nil {
				return cmd.usageErr("%v", err)
			}
			pruneMCPRuns(filepath.Dir(sd), keep.D, log)
		}
		local, stop, err := localEngine(ctx, serve.Options{StateDir: sd, Logger: log, Control: *control, Events: true, Keep: keep.D}, stderr)
		if err != nil {
			return cmd.fail(exitFailure, "%v", err)
		}
		defer stop()
		engine = local
	}
	s := mcpserver.New(engine, mcpserver.Options{Socket: *socket, Workdir: dir, Provider: *prov,
		Config: &cfg, Version: version.Get().Version, Logger: log})
	t := &mcp.IOTransport{Reader: readCloser{stdin}, Writer: writeCloser{stdout}}
	if err := s.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return cmd.fail(exitFailure, "%v", err)
	}
	return exitOK
}

// localEngine is a service in this process (traced when OpenTelemetry is
// set up) as an engine; stop closes it.
func localEngine(ctx context.Context, o serve.Options, stderr io.Writer) (*serve.Service, func(), error) {
	tr, shutdown := otelTracer(ctx, stderr)
	o.Tracer = tr
	svc, err := serve.New(o)
	if err != nil {
		shutdown()
		return nil, nil, err
	}
	o.Logger.Info("handoff-fsm mcp: dispatching in this process", "state_dir", o.StateDir)
	return svc, func() { svc.Close(); shutdown() }, nil
}

// defaultMCPStateDir is a new folder per run beside serve's state folder:
// each supervising agent starts its own `handoff-fsm mcp`, and a service's
// folder takes one process at a time. The folders are the history.
func defaultMCPStateDir(now time.Time) (string, error) {
	base, err := serve.DefaultStateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(base), "mcp", now.UTC().Format("20060102-150405")+"-"+strconv.Itoa(os.Getpid())), nil
}

// pruneMCPRuns prunes the state folders earlier `mcp` runs left under
// runs (one per run): their finished dispatches older than keep, and a
// folder with no dispatch left. A folder a running mcp holds is skipped.
func pruneMCPRuns(runs string, keep time.Duration, log *slog.Logger) {
	if keep <= 0 {
		return
	}
	entries, err := os.ReadDir(runs)
	if err != nil {
		return // no earlier run
	}
	folders := 0
	for _, e := range entries {
		// A folder just made may belong to a run that has not taken its
		// lock yet: only folders untouched for an hour are looked at.
		if info, err := e.Info(); err != nil || !e.IsDir() || time.Since(info.ModTime()) < time.Hour {
			continue
		}
		_, gone, err := serve.PruneFolder(filepath.Join(runs, e.Name()), keep, time.Now())
		if err != nil && !errors.Is(err, serve.ErrLocked) {
			log.Warn("handoff-fsm mcp: pruning an earlier run's folder", "folder", e.Name(), "error", err)
		}
		if gone {
			folders++
		}
	}
	if folders > 0 {
		log.Info("handoff-fsm mcp: removed the folders of earlier runs with no dispatch left", "folders", folders, "under", runs)
	}
}

// readCloser and writeCloser give the command's stdin and stdout the
// Close the transport wants, without closing the process's files.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
