package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

const replayUsage = `usage: handoff-fsm replay [--poll S] [--idle-grace S] [--timeout S] [--strict=BOOL] [config flags] [-v] FILE

Runs the engine on virtual time against a scripted terminal and prints the outcome as one JSON
object. FILE (- for stdin) is a trace, JSON Lines:

  {"config":{"poll":2,"idle_grace":30,"response_timeout":1800,"strict":true}}   optional, first
  {"at":0,"status":"processing"}
  {"at":42.5,"file":"the agent's answer"}
  {"at":44,"status":"idle","last_output":"what the screen shows"}

"at" is seconds since dispatch, in order. "status": the terminal reports it from then on (any
value other than idle/completed/error counts as the agent working); before the first status
the terminal reports "idle" (the previous turn's stale prompt). "file": the agent writes the
response file with this text ("" is an empty file). "last_output": the terminal's last output
from then on (the fallback answer; "" if never given). The config line is the wait's settings
in their JSON form (send's knobs by their JSON names, durations in seconds; see docs/usage.md),
with the dispatch's "receipt". Flags override the config line, which overrides the defaults
(poll 2 s, idle grace 30 s, timeout 1800 s, strict).

Output: {"outcome":"done"|"failed","source":"file"|"fallback","error":"terminal_error"|
"no_response_file"|"timeout","content":"...","at":SECONDS,"transitions":[{"at","from","to",
"event","status"}]}. "source" appears only when done, "error" only when failed; "content" is
"" on failure. Exit status 0 whatever the outcome; 1 for a malformed trace (the message names
the line) or a replay that could not run; 2 for bad flags.

Durations take Go durations (1.5s, 500ms) or bare numbers of seconds.

flags:
`

// runReplay replays a trace through the engine and prints the report.
func runReplay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("replay", replayUsage, stderr)
	def := handoff.DefaultConfig()
	cf := configflag.Add(cmd.FlagSet, def, " (overrides the trace's config)")
	verbose := cmd.Bool("v", false, "log the engine's transitions and warnings to stderr")
	// Flags may come before or after FILE.
	files, code, ok := cmd.parse(args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "handoff-fsm replay: want exactly one trace FILE (or - for stdin), got %d\n", len(files))
		fmt.Fprintln(stderr, "run handoff-fsm replay -h for the format")
		return exitUsage
	}
	name := files[0]
	var in io.Reader = stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return cmd.fail(exitFailure, "%v", err)
		}
		defer f.Close()
		in = f
	} else {
		name = "stdin"
	}
	tr, err := trace.Read(in)
	if err != nil {
		return cmd.fail(exitFailure, "%s: %v", name, err)
	}

	cfg, err := cf.Override(tr.WaitConfig())
	if err != nil {
		return cmd.fail(exitFailure, "%s: %v", name, err)
	}
	opts := trace.ReplayOptions{Config: cfg}
	if *verbose {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	rep, err := trace.Replay(ctx, tr, opts)
	if err != nil {
		return cmd.fail(exitFailure, "%s: %v", name, err)
	}
	if err := writeJSON(stdout, rep); err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	return exitOK
}
