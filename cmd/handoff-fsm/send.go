package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
	"github.com/handoff-fsm/handoff-fsm/version"
)

const sendUsage = `usage: handoff-fsm send --target T [--socket NAME | --socket-path PATH] --role ROLE
                        [--workdir DIR] (--prompt TEXT | --prompt-file F | -) [flags]

Sends a prompt to the agent in a tmux pane and waits for its answer with the state machine:
makes sure <workdir>/.tmp/agent-responses exists, archives a stale response file, appends the
RESPONSE FILE INSTRUCTION, pastes the prompt and presses Enter, then polls the pane and the
response file. The response goes to stdout, and nothing else does. stderr gets one line per
transition and, on a terminal, a live progress line.

One response file is one slot: while a dispatch waits on it, a second one to the same role and
workdir (another send, or a resume) is refused at once (exit 1) with the holder's pid, unless
--wait-slot. The lock (<workdir>/.tmp/agent-responses/.<file>.lock) dies with its process.
One pane takes one dispatch at a time too, whatever the role: a second send to a pane that is
taken is refused at once (exit 1) naming the holder (pid, role, since when), unless --wait-slot.
That lock lives in a per-user folder ($XDG_RUNTIME_DIR/handoff-fsm or <tmp>/handoff-fsm-<uid>).

Before pasting, send looks at the agent: one that works or waits for the user would queue the
prompt and answer it after its current turn, so send waits up to --busy-wait for a ready prompt
and otherwise ends with exit 8, sending nothing. --when-busy=queue pastes anyway. A dispatch
that times out (exit 6) leaves the pane marked busy with it: the next send, status and the
board (watch without --target) say so, until a later dispatch sees the agent ready.

roles: %s
  (any other name — letters, digits, _ and - — is a role of your own, with the response file
  <role>.md; a name a typo away from one of the above is refused)

exit codes:
  0  done: the response came from the response file
  3  done: the response is the terminal's last output (fallback, --strict=false)
  4  terminal error: the agent's screen showed an error, or the pane, its agent or the tmux
     server is gone
  5  no response file: the agent went quiet for the idle grace without writing it (strict);
     the error says so when the prompt never left the agent's composer (never submitted)
  6  timeout: the response timeout passed while the agent still worked
  7  needs the user: the agent still waited for an answer after --auto-answer ran out
  8  agent busy: before pasting, the agent worked or waited for the user for all of --busy-wait;
     nothing was sent
  2  usage error
  1  anything else (tmux missing, I/O errors, interrupted), and a prompt not taken whole
     and once: its paste did not arrive whole, or the agent's screen shows it submitted
     twice, split or replaced (its answer archived, not returned)

Durations take Go durations (1.5s, 500ms) or bare numbers of seconds.

flags:
`

// runSend is the main job: send a prompt into a pane and print the answer.
func runSend(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("send", fmt.Sprintf(sendUsage, strings.Join(handoff.Roles(), ", ")), stderr)
	f := addSendFlags(fs)
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	var jsonLog *jsonLines
	switch *f.logFormat {
	case "text":
	case "json":
		jsonLog = newJSONLines(stderr)
		stderr = jsonLog
	default:
		fmt.Fprintf(stderr, "handoff-fsm send: --log-format %q: want text or json\n", *f.logFormat)
		return exitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "handoff-fsm send: "+format+"\n", a...)
		fmt.Fprintln(stderr, "run handoff-fsm send -h for the flags")
		return exitUsage
	}
	text, err := readPrompt(pos, *f.prompt, *f.promptFile, stdin)
	if err != nil {
		return usageErr("%v", err)
	}
	if *f.role == "" {
		return usageErr("--role is required (one of %s)", strings.Join(handoff.Roles(), ", "))
	}
	_, note, err := handoff.ResolveRole(*f.role)
	if err != nil {
		return usageErr("%v", err)
	}
	if note != "" {
		fmt.Fprintln(stderr, "handoff-fsm: "+note)
	}
	cfg, err := f.cf.Config(handoff.DefaultConfig())
	if err != nil {
		return usageErr("%v", err)
	}
	client, err := f.pf.service(*f.server)
	if err != nil {
		return usageErr("%v", err)
	}
	if client != nil {
		if name := unsupportedRemote(fs); name != "" {
			return usageErr("--%s is not supported with --server", name)
		}
	} else if *f.noWait {
		return usageErr("--no-wait needs --server: only a service goes on with a dispatch after send exits")
	}
	if *f.statePath != "" && *f.pf.providerFile != "" {
		return usageErr("--state and --provider-file: resume reads a provider by name; not supported with a provider file yet")
	}
	body, err := f.body(cfg, text)
	if err != nil {
		return usageErr("%v", err)
	}
	r := sendRun{cmd: "send", target: body.Target, out: newProgress(stderr), jsonLog: jsonLog, asJSON: *f.asJSON, noWait: *f.noWait}
	if client != nil {
		_, code := remoteRun(r, client, body).run(ctx, stdout)
		return code
	}
	return sendHere(ctx, fs, f, r, body, stdout, usageErr)
}

// remoteFlags are the send flags besides the config's (configFlags, all
// of which a service takes) that a service takes; any other given with
// --server is refused rather than silently ignored.
var remoteFlags = map[string]bool{
	"server": true, "target": true, "socket": true, "socket-path": true, "provider": true, "history": true,
	"allow-shell": true, "tmux-timeout": true, "role": true, "workdir": true, "prompt": true, "prompt-file": true,
	"json": true, "log-format": true, "wait-slot": true, "no-wait": true,
}

// unsupportedRemote names a flag given that a service does not take.
func unsupportedRemote(fs *flag.FlagSet) string {
	bad := ""
	fs.Visit(func(f *flag.Flag) {
		if !remoteFlags[f.Name] && !configflag.IsFlag(f.Name) && bad == "" {
			bad = f.Name
		}
	})
	return bad
}

// body is the dispatch the flags ask for, as an engine takes it: the work
// folder (and the hook's) absolute.
func (f *sendFlags) body(cfg handoff.Config, prompt string) (serve.SubmitBody, error) {
	if f.pf.pane.Target == "" {
		return serve.SubmitBody{}, errors.New("--target is required (the agent's tmux pane: session:window.pane or %id)")
	}
	workdir, err := filepath.Abs(*f.workdir)
	if err != nil {
		return serve.SubmitBody{}, fmt.Errorf("--workdir: %w", err)
	}
	tmuxTimeout := f.pf.tmuxWait.D.Seconds()
	history := *f.pf.history
	b := serve.SubmitBody{Pane: f.pf.pane, Role: *f.role, Workdir: workdir, Prompt: prompt, History: &history,
		AllowShell: *f.pf.allowShell, TmuxTimeout: &tmuxTimeout, WaitSlot: *f.waitSlot, Config: &cfg}
	if *f.hookDir != "" && *f.events {
		if b.HookDir, err = filepath.Abs(*f.hookDir); err != nil {
			return serve.SubmitBody{}, fmt.Errorf("--hook-dir: %w", err)
		}
	}
	return b, nil
}

// sendFlags are send's flags.
type sendFlags struct {
	pf                                                   *paneFlags
	cf                                                   *configflag.Flags
	role, workdir, prompt, promptFile, logFormat, record *string
	hookDir, statePath, server                           *string
	asJSON, events, control, noWait, waitSlot            *bool
	settle, enterDelay                                   *configflag.Duration
}

// addSendFlags declares send's flags on fs.
func addSendFlags(fs *flag.FlagSet) *sendFlags {
	f := &sendFlags{pf: addPaneFlags(fs)}
	f.role = fs.String("role", "", "agent role; names the response file (required)")
	f.workdir = fs.String("workdir", ".", "folder the response files live under (<workdir>/.tmp/agent-responses)")
	f.prompt = fs.String("prompt", "", "the prompt text")
	f.promptFile = fs.String("prompt-file", "", "read the prompt from this file")
	f.cf = configflag.Add(fs, handoff.DefaultConfig(), "")
	f.settle = configflag.DurationVar(fs, "settle", 0, "before pasting, wait up to this long for the agent to show a ready prompt twice in a row (agents ignore input while they start); 0 sends at once")
	f.logFormat = fs.String("log-format", "text", "stderr format: text (lines for people), or json (one slog JSON object per line: each transition structured, other messages as msg)")
	f.asJSON = fs.Bool("json", false, "print the result object of 'handoff-fsm replay' (outcome, source, error, content, at, transitions) instead of the response")
	f.record = fs.String("record", "", "write what was observed to this file as a trace in the replay format")
	f.events = fs.Bool("events", true, "react to the response file and to the agent's completion hook at once (a folder watch) instead of at the next poll; --events=false polls only")
	f.hookDir = fs.String("hook-dir", "", "the folder this agent's Stop hook writes to (Claude Code: handoff-fsm hook --dir DIR in its settings): the wait decides on its marker at once, the screen still polled")
	f.control = fs.Bool("control", false, "carry the looks over one tmux control-mode client and look again when the pane prints (no tmux process per poll); for a few panes: each client gets the output of every pane in its session")
	f.enterDelay = configflag.DurationVar(fs, "enter-delay", tmuxdriver.DefaultEnterDelay, "pause between the paste and Enter")
	f.statePath = fs.String("state", "", "keep the dispatch's state in this JSON file, rewritten atomically after every poll, so that\n'handoff-fsm resume --state FILE' continues the wait after a crash or Ctrl-C without sending again")
	f.noWait = fs.Bool("no-wait", false, "with --server: print the dispatch id on stdout once the service accepted it and exit 0, without waiting (handoff-fsm wait ID… waits later)")
	f.waitSlot = fs.Bool("wait-slot", false, "when another dispatch holds this role's response file in this workdir, wait for it instead of failing at once")
	f.server = fs.String("server", "", "dispatch through the service (handoff-fsm serve) at unix:PATH or tcp:HOST:PORT (or HANDOFF_SERVER; \"default\" is its default socket): same stdout and exit codes")
	return f
}

// sendHere runs the dispatch on an engine in this process (local): the
// pane its flags name (over a control-mode client with --control), its
// --record and --state, the same run as on a service.
func sendHere(ctx context.Context, fs *flag.FlagSet, f *sendFlags, r sendRun, body serve.SubmitBody, stdout io.Writer, usageErr func(string, ...any) int) int {
	l := &local{out: r.out, logger: engineLogger(r.out, r.jsonLog), settle: f.settle.D, provider: f.pf.providerName()}
	code, ok := l.open(ctx, fs, f, usageErr)
	if !ok {
		return code
	}
	if l.control != nil {
		defer l.control.Close()
	}
	// The pane is open: what auto named is the dispatch's provider. A
	// provider file's CLI has no name an engine knows (--state refuses
	// it): the dispatch names the default, and the pane the engine is
	// given reads the file's rules.
	switch {
	case *f.pf.providerFile != "":
		body.Provider = ""
	case f.pf.named != "":
		body.Provider = f.pf.named
	}
	var err error
	if *f.statePath != "" {
		if l.state, err = startState(*f.statePath, f.pf, body); err != nil {
			fmt.Fprintf(r.out, "handoff-fsm send: --state: %v\n", err)
			return exitFailure
		}
		l.statePath = *f.statePath
	}
	_, code = l.dispatch(ctx, r, body, *f.record, *f.events, stdout)
	return code
}

// readPrompt takes the prompt from exactly one of --prompt, --prompt-file
// and "-" (stdin).
func readPrompt(args []string, prompt, file string, stdin io.Reader) (string, error) {
	fromStdin := false
	for _, a := range args {
		if a != "-" {
			return "", fmt.Errorf("unexpected argument %q (give the prompt with --prompt, --prompt-file or - for stdin)", a)
		}
		fromStdin = true
	}
	n := 0
	for _, given := range []bool{prompt != "", file != "", fromStdin} {
		if given {
			n++
		}
	}
	if n != 1 {
		return "", errors.New("give the prompt exactly once: --prompt TEXT, --prompt-file FILE or - (stdin)")
	}
	var text string
	switch {
	case prompt != "":
		text = prompt
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("read the prompt: %w", err)
		}
		text = string(b)
	default:
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", fmt.Errorf("read the prompt from stdin: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the prompt is empty")
	}
	if err := handoff.CheckPrompt(text); err != nil {
		return "", err
	}
	return text, nil
}

// finish prints a dispatch's outcome and returns the exit code: the
// response (or rep, the report, with asJSON) on stdout, the failure on
// stderr.
func finish(cmd string, rep *trace.Report, res fsm.Result, err error, asJSON bool, stdout, stderr io.Writer) int {
	if asJSON && rep != nil {
		v := version.Get()
		rep.Version = &v
		if jerr := writeJSON(stdout, rep); jerr != nil {
			fmt.Fprintf(stderr, "handoff-fsm %s: %v\n", cmd, jerr)
			return exitFailure
		}
	}
	if err == nil {
		if !asJSON {
			fmt.Fprint(stdout, res.Content)
			if !strings.HasSuffix(res.Content, "\n") {
				fmt.Fprintln(stdout)
			}
		}
		o := res.Outcome()
		if res.Source == fsm.SourceFallback {
			fmt.Fprintf(stderr, "handoff-fsm: done in %.1fs by fallback: the agent wrote no response file; the response is its last output\n", res.Elapsed.Seconds())
			return o.Exit
		}
		where := ""
		if res.ArchivedPath != "" {
			where = " (archived as " + res.ArchivedPath + ")"
		}
		fmt.Fprintf(stderr, "handoff-fsm: done in %.1fs from the response file%s\n", res.Elapsed.Seconds(), where)
		return o.Exit
	}
	fmt.Fprintf(stderr, "handoff-fsm %s: %v\n", cmd, err)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "handoff-fsm %s: interrupted\n", cmd)
	}
	return dispatchstate.ExitOf(res, err)
}
