package handofftemporal

import "go.temporal.io/sdk/worker"

// Register registers the workflows (Loop, DispatchWorkflow) and a's
// activities with a worker. A worker on a host with panes runs on that
// host's task queue (the HOST of the panes' addresses); the workflows may
// run on any worker.
func Register(w worker.Registry, a *Activities) {
	w.RegisterWorkflow(Loop)
	w.RegisterWorkflow(DispatchWorkflow)
	w.RegisterActivity(a)
}
