package main

import (
	"context"
	"fmt"
	"io"
)

// runStatus is not built yet.
func runStatus(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "handoff-fsm: status is not implemented yet")
	return exitFailure
}
