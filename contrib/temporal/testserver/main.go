// Command testserver runs a real Temporal server in one process
// (go.temporal.io/server/temporaltest: frontend, history, matching and
// an in-memory SQLite store) for contrib/temporal's tests, and prints its
// frontend address and namespace on stdout, one line: "HOST:PORT NAMESPACE".
// It runs until its standard input closes or it is signalled.
//
// It is a module of its own: the Temporal server pins OpenTelemetry
// versions (go.opentelemetry.io/otel v1.44, otel/log v0.20) that cannot be
// built together with the core module's (otel v1.47), so the server runs
// beside the tests, not inside them.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/server/temporaltest"
)

func main() {
	ts := temporaltest.NewServer()
	fmt.Printf("%s %s\n", ts.GetFrontendHostPort(), ts.GetDefaultNamespace())
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	ts.Stop()
}
