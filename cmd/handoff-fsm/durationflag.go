package main

import (
	"flag"
	"time"

	"github.com/handoff-fsm/handoff-fsm/trace"
)

// durationFlag is a flag.Value over trace.ParseDuration (a Go duration or
// bare seconds, the same syntax as a trace) that remembers whether it
// was set, so a flag can override a value from elsewhere (a trace's config).
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string { return f.d.String() }

func (f *durationFlag) Set(s string) error {
	d, err := trace.ParseDuration(s)
	if err != nil {
		return err
	}
	f.d, f.set = d, true
	return nil
}

// durationVar registers a duration flag with a default on fs.
func durationVar(fs *flag.FlagSet, name string, def time.Duration, usage string) *durationFlag {
	f := &durationFlag{d: def}
	fs.Var(f, name, usage)
	return f
}
