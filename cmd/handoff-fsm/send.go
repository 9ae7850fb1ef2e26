package main

import (
	"context"
	"fmt"
	"io"
)

// runSend is not built yet.
func runSend(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "handoff-fsm: send is not implemented yet")
	return exitFailure
}
