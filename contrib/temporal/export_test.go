package handofftemporal

import "context"

// InTestEnvironment makes a fit to run in the Temporal SDK's in-process
// test environments (go.temporal.io/sdk/testsuite): their mock service
// answers the SDK's own heartbeats (activity.RecordHeartbeat, which every
// heartbeat also goes through) but no client call, so the heartbeats that
// must reach a server at once (the paste starts, a consume starts) are not
// also sent through the activity's client there.
func InTestEnvironment(a *Activities) *Activities {
	a.sendNow = func(context.Context, []byte, Progress) error { return nil }
	return a
}
