// Command handoff-fsm dispatches prompts to coding agents in tmux panes and
// waits for their answers with an explicit state machine; it also replays
// recorded sessions, draws the state diagram and classifies screens.
//
// Each subcommand lives in its own file; this one only routes.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand: it parses args itself and returns the process
// exit code.
type command struct {
	summary string
	hidden  bool
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// Exit codes shared by the subcommands (documented in docs/usage.md and --help).
// A dispatch's ending exits with its outcome's code, read off the transition
// table (handoff.Outcome.Exit); the names below are for help text and tests,
// and a test checks they agree with the table.
const (
	exitOK        = 0 // done: the response came from the response file
	exitFallback  = 3 // done: the response is the terminal's last output (strict off)
	exitTerminal  = 4 // the terminal reported an error, or is gone
	exitNoFile    = 5 // strict mode: the agent went quiet without writing its file
	exitTimeout   = 6 // the response timeout passed while the agent still worked
	exitNeedsUser = 7 // the agent kept waiting for the user after the automatic answers ran out
	exitBusy      = 8 // before pasting, the agent stayed busy for the busy wait; nothing was sent
	exitFailure   = 1 // anything else: bad input, tmux missing, I/O errors
	exitUsage     = 2 // bad flags or arguments
)

func commands() map[string]command {
	return map[string]command{
		"replay":     {summary: "run the engine on a scripted terminal (JSON Lines trace) and print the result as JSON", run: runReplay},
		"diagram":    {summary: "print the state diagram generated from the transition table", run: runDiagram},
		"explain":    {summary: "say why a pane, a saved screen or a dispatch reads as it does: the classifier's reasons and each transition's evidence", run: runExplain},
		"classify":   {summary: "classify a captured agent screen and print the status as JSON", run: runClassify},
		"send":       {summary: "send a prompt to an agent in a tmux pane and print its response", run: runSend},
		"resume":     {summary: "continue a dispatch that send --state started, after a crash or Ctrl-C", run: runResume},
		"status":     {summary: "print the classified status of a live tmux pane as JSON", run: runStatus},
		"watch":      {summary: "print a line whenever a tmux pane's status changes", run: runWatch},
		"demo":       {summary: "run a simulated agent in a private tmux server and dispatch to it", run: runDemo},
		"up":         {summary: "start a team's agents (a team file) in tmux and wait until each is ready", run: runUp},
		"down":       {summary: "end a team's agents, their process groups and the team's tmux session", run: runDown},
		"run":        {summary: "run the spec's loop (analyst … tester) on a team, with a run journal to go on after Ctrl-C", run: runTeamLoop},
		"board":      {summary: "print a one-time login link to the web board of the running service (serve --http)", run: runBoardLink},
		"serve":      {summary: "one dispatch engine for the host: an HTTP/JSON API on a unix socket, durable across restarts", run: runServe},
		"mcp":        {summary: "an MCP server on stdio: tools that hand a prompt to an agent in a tmux pane and return its answer", run: runMCP},
		"install":    {summary: "register handoff-fsm mcp (and a skill) in Claude Code's, Codex's or Gemini CLI's configuration", run: runInstall},
		"wait":       {summary: "wait for the first (or every one) of several dispatches of handoff-fsm serve to end", run: runWait},
		"history":    {summary: "list the dispatches of handoff-fsm serve: who was asked what, when, and how it ended", run: runHistory},
		"hook":       {summary: "record an agent CLI's hook call (Claude Code Stop, Gemini CLI AfterAgent, …) as a marker file", run: runHook},
		"doctor":     {summary: "check that handoff-fsm reads your agent CLIs right: the conformance cases on each, against a fake model, offline", run: runDoctor},
		"providers":  {summary: "list the agent CLIs handoff-fsm reads, with the version each is proven on", run: runProviders},
		"version":    {summary: "print the build: module version, source revision, Go version", run: runVersion},
		"completion": {summary: "print a shell completion script: bash, zsh or fish", run: runCompletion},
		completeCmd:  {summary: "the completions of a command line (the completion scripts call it)", hidden: true, run: runComplete},
		"sim-agent":  {summary: "the simulated Codex-like agent the demo runs (internal)", hidden: true, run: runSimAgent},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr, cmds)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, args[1:], stdin, stdout, stderr)
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "handoff-fsm: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return exitUsage
	}
	return c.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: handoff-fsm <command> [flags]   (handoff-fsm <command> -h for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(cmds))
	for n, c := range cmds {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintf(w, "\nexit codes: %d done (response file), %d done (fallback: last output), %d terminal error,\n"+
		"  %d no response file (strict), %d timeout, %d needs the user, %d agent busy (nothing sent),\n"+
		"  %d usage error, %d other errors\n",
		exitOK, exitFallback, exitTerminal, exitNoFile, exitTimeout, exitNeedsUser, exitBusy, exitUsage, exitFailure)
}

// newFlagSet returns the flag set of subcommand name: its errors go to
// stderr, and -h prints usage (the text above the flag list), then the flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if c, ok := stderr.(*flagCollector); ok {
		c.fs = fs // flagsOf: the command's flags, read without running it
	}
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses args, letting flags come before or after the positional
// arguments, which it returns in order. ok is false when the command must
// stop with code: after -h (exitOK) or a bad flag (exitUsage).
func parseArgs(fs *flag.FlagSet, args []string) (positional []string, code int, ok bool) {
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		if fs.NArg() == 0 {
			return positional, exitOK, true
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
}

// parseFlagsOnly parses args for a subcommand that takes no positional
// arguments. ok is false when the command must stop with code: after -h
// (exitOK), a bad flag or a stray argument (exitUsage).
func parseFlagsOnly(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	pos, code, ok := parseArgs(fs, args)
	if ok && len(pos) > 0 {
		fmt.Fprintf(stderr, "handoff-fsm %s: unexpected argument %q\n", fs.Name(), pos[0])
		return exitUsage, false
	}
	return code, ok
}

// cmdline is a command's flag set with its stderr: what every command does
// the same way. Its flags (newFlagSet), its parse (parseArgs,
// parseFlagsOnly), and its errors, said on stderr as "handoff-fsm NAME: …"
// with the exit code they end the command with.
type cmdline struct {
	*flag.FlagSet
	stderr io.Writer
}

// newCmdline is command name's flag set (newFlagSet) with its stderr.
func newCmdline(name, usage string, stderr io.Writer) cmdline {
	return cmdline{newFlagSet(name, usage, stderr), stderr}
}

// parse is parseArgs: the positional arguments, or ok false and the code
// to stop with.
func (c cmdline) parse(args []string) (positional []string, code int, ok bool) {
	return parseArgs(c.FlagSet, args)
}

// parseFlagsOnly is parseFlagsOnly: a command that takes no positional
// argument.
func (c cmdline) parseFlagsOnly(args []string) (code int, ok bool) {
	return parseFlagsOnly(c.FlagSet, args, c.stderr)
}

// usageErr says a usage error (bad flags or arguments) and returns
// exitUsage.
func (c cmdline) usageErr(format string, a ...any) int {
	return c.fail(exitUsage, format, a...)
}

// fail says an error and returns code (exitFailure for anything but bad
// input, or a dispatch's own exit).
func (c cmdline) fail(code int, format string, a ...any) int {
	fmt.Fprintf(c.stderr, "handoff-fsm "+c.Name()+": "+format+"\n", a...)
	return code
}

// writeJSON prints v as one line of JSON. HTML escaping is off: captures and
// responses hold "<<" heredocs and "->" arrows, which must stay readable.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
