package simagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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
