package simagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// RunIfEnv lets a test binary double as the simulated agent that its tests
// start in tmux panes: when the environment variable env holds Options as
// JSON, it runs that agent on stdin and stdout and exits the process (2 for
// bad options, 1 when the agent fails); otherwise it returns at once. Call
// it first in TestMain.
func RunIfEnv(env string) {
	o := os.Getenv(env)
	if o == "" {
		return
	}
	var opts Options
	if err := json.Unmarshal([]byte(o), &opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	a, err := New(opts)
	if err == nil {
		err = a.Run(context.Background(), os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// EnvCommand is the shell command that runs this binary (a test binary
// whose TestMain calls RunIfEnv(env)) as the simulated agent with o: what
// a test starts in a tmux pane.
func EnvCommand(env string, o Options) string {
	b, _ := json.Marshal(o)
	return "exec env " + env + "=" + handoff.ShellQuote(string(b)) + " " + handoff.ShellQuote(os.Args[0])
}
