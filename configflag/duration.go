package configflag

import (
	"flag"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Duration is a flag.Value over handoff.ParseDuration (a Go duration or
// bare seconds, the same syntax as a trace and the config's JSON form)
// that remembers whether it was set, so a flag can override a value from
// elsewhere (a trace's config).
type Duration struct {
	D     time.Duration // the value
	Given bool          // set on the command line
}

// String is the value as a Go duration.
func (f *Duration) String() string { return f.D.String() }

// Set parses a Go duration or bare seconds.
func (f *Duration) Set(s string) error {
	d, err := handoff.ParseDuration(s)
	if err != nil {
		return err
	}
	f.D, f.Given = d, true
	return nil
}

// DurationVar registers a duration flag with a default on fs.
func DurationVar(fs *flag.FlagSet, name string, def time.Duration, usage string) *Duration {
	f := &Duration{D: def}
	fs.Var(f, name, usage)
	return f
}
