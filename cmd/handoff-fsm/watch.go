package main

import (
	"context"
	"fmt"
	"io"
)

// runWatch is not built yet.
func runWatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "handoff-fsm: watch is not implemented yet")
	return exitFailure
}
