package main

import (
	"context"
	"fmt"
	"io"
)

// runReplay is not built yet.
func runReplay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "handoff-fsm: replay is not implemented yet")
	return exitFailure
}
