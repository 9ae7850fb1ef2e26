package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
)

// runSimAgent runs the simulated Codex-like agent on the terminal it was
// started in (the demo starts it in a tmux pane). Hidden: it is plumbing
// for demo and the end-to-end tests.
func runSimAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("sim-agent", "usage: handoff-fsm sim-agent [flags]   (run it in a terminal, e.g. a tmux pane)\n"+
		"A simulated Codex-like agent: draws Codex 0.169-like screens, reads prompts as bracketed\n"+
		"paste + Enter, reproduces the startup race, and answers through the RESPONSE FILE INSTRUCTION.\n", stderr)
	scenario := cmd.String("scenario", string(simagent.ScenarioNormal), "normal, slow-start, never-writes, crash, forgets (writes the file only when reminded), asks (an approval menu before writing) or bounces (drops each turn at once and puts the prompt back in its composer, unsent)")
	startup := configflag.DurationVar(cmd.FlagSet, "startup", 0, "how long the previous turn's idle screen stays after Enter (default by scenario: 1.5s, slow-start 3s)")
	work := configflag.DurationVar(cmd.FlagSet, "work", simagent.DefaultWork, "how long the Working indicator shows")
	stream := configflag.DurationVar(cmd.FlagSet, "stream", simagent.DefaultStream, "how long the reply streams (spinner title only)")
	burst := configflag.DurationVar(cmd.FlagSet, "paste-burst", simagent.DefaultPasteBurst, "an Enter this soon after a paste is a newline, as in Codex (0: off)")
	echo := cmd.Bool("echo", false, "write exactly what the user asked into the response file")
	prev := cmd.Bool("previous-turn", false, "start with a finished turn on screen (the stale screen reads completed)")
	model := cmd.String("model", "sim-model", "model name on the status line")
	var answers stringsFlag
	cmd.Var(&answers, "answer", "write this text to the response file instead of a generated answer; repeated, the n-th prompt gets the n-th and the last is repeated")
	jitter := configflag.DurationVar(cmd.FlagSet, "work-jitter", 0, "add a random extra of up to this much to each turn's work (benchmarks)")
	idleLog := cmd.String("idle-log", "", "append the time each turn ends (Unix ns) to this file (benchmarks)")
	promptLog := cmd.String("prompt-log", "", "append each prompt taken (the user's text as a JSON string, one a line) to this file (soak tests: a prompt pasted twice shows twice)")
	redraw := configflag.DurationVar(cmd.FlagSet, "redraw", simagent.DefaultRedraw, "how often a busy screen is redrawn (benchmarks of many agents slow it)")
	workUntil := cmd.String("work-until", "", "keep each turn working until this file exists (tests decide when the agent is done)")
	cwd := cmd.String("cwd", "", "directory on the status line and in the title (default: the working directory)")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	tty, ok := stdin.(*os.File)
	if !ok {
		fmt.Fprintln(stderr, "sim-agent: standard input must be a terminal (run it in a tmux pane)")
		return exitUsage
	}
	pb := burst.D
	if burst.Given && pb == 0 {
		pb = -1 // explicitly off
	}
	agent, err := simagent.New(simagent.Options{
		Scenario: simagent.Scenario(*scenario), Startup: startup.D, Work: work.D, Stream: stream.D,
		PasteBurst: pb, Echo: *echo, PreviousTurn: *prev, Model: *model, Cwd: *cwd, IdleLog: *idleLog, PromptLog: *promptLog, WorkJitter: jitter.D, Answers: answers,
		Redraw: redraw.D, WorkUntil: *workUntil,
	})
	if err != nil {
		fmt.Fprintf(stderr, "sim-agent: %v\n", err)
		return exitUsage
	}
	if err := agent.Run(ctx, tty, stdout); err != nil {
		fmt.Fprintf(stderr, "sim-agent: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// stringsFlag collects a repeated flag's values.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, ", ") }

func (f *stringsFlag) Set(s string) error {
	*f = append(*f, s)
	return nil
}
