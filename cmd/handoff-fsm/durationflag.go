package main

import (
	"flag"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// durationFlag is a flag.Value over handoff.ParseDuration (a Go duration or
// bare seconds, the same syntax as a trace) that remembers whether it
// was set, so a flag can override a value from elsewhere (a trace's config).
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string { return f.d.String() }

func (f *durationFlag) Set(s string) error {
	d, err := handoff.ParseDuration(s)
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
