package main

import (
	"flag"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// configFlags are the wait's knobs on the command line (--poll,
// --idle-grace, --timeout, --strict), declared once for send, demo and
// replay so their names, syntax and help stay the same everywhere.
type configFlags struct {
	fs                   *flag.FlagSet
	poll, grace, timeout *durationFlag
	strict               *bool
}

// addConfigFlags declares the flags on fs with def's values as defaults;
// note is appended to each help line (say, what the flag overrides).
func addConfigFlags(fs *flag.FlagSet, def handoff.Config, note string) *configFlags {
	return &configFlags{
		fs:      fs,
		poll:    durationVar(fs, "poll", def.Poll, "how often the pane and the response file are observed"+note),
		grace:   durationVar(fs, "idle-grace", def.IdleGrace, "how long the agent may sit quiet without the file, also the startup timeout"+note),
		timeout: durationVar(fs, "timeout", def.ResponseTimeout, "response timeout, from dispatch"+note),
		strict:  fs.Bool("strict", def.Strict(), "fail without the response file; --strict=false falls back to the last output"+note),
	}
}

// config is base with every flag's value.
func (f *configFlags) config(base handoff.Config) handoff.Config {
	base = base.WithDefaults()
	base.Poll, base.IdleGrace, base.ResponseTimeout, base.Fallback = f.poll.d, f.grace.d, f.timeout.d, !*f.strict
	return base
}

// override is base with the values of the flags given on the command line
// only (replay: flags override the trace's config).
func (f *configFlags) override(base handoff.Config) handoff.Config {
	base = base.WithDefaults()
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "poll":
			base.Poll = f.poll.d
		case "idle-grace":
			base.IdleGrace = f.grace.d
		case "timeout":
			base.ResponseTimeout = f.timeout.d
		case "strict":
			base.Fallback = !*f.strict
		}
	})
	return base
}
