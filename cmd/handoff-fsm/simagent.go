package main

import (
	"context"
	"fmt"
	"io"
)

// runSimAgent is not built yet.
func runSimAgent(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "handoff-fsm: simagent is not implemented yet")
	return exitFailure
}
