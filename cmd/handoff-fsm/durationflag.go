package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseDuration accepts a Go duration ("1.5s", "500ms") or a bare number of
// seconds ("2", "0.5").
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("duration %q is negative", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want a Go duration (1.5s, 500ms) or a number of seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return d, nil
}

// durationFlag is a flag.Value over parseDuration that remembers whether it
// was set, so a flag can override a value from elsewhere (a trace's config).
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string { return f.d.String() }

func (f *durationFlag) Set(s string) error {
	d, err := parseDuration(s)
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
