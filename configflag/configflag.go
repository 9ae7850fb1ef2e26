// Package configflag is the wait's settings (handoff.Config) as
// command-line flags, declared once for every command that waits — the
// handoff-fsm command's send, run, mcp, demo and replay, and the examples'
// and contrib's own commands — so their names, syntax, defaults and help
// are the same everywhere. Durations take a Go duration or bare seconds
// (handoff.ParseDuration), as the config's JSON form does.
package configflag

import (
	"flag"
	"fmt"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Flags are the wait's knobs on one flag set; the service takes every one
// (send --server).
type Flags struct {
	fs    *flag.FlagSet
	knobs []knob
}

// knob is one flag and how its value goes into a Config.
type knob struct {
	name string
	set  func(*handoff.Config) error
}

// Add declares the flags on fs with def's values as defaults; note is
// appended to each help line (say, what the flag overrides).
func Add(fs *flag.FlagSet, def handoff.Config, note string) *Flags {
	def = def.WithDefaults()
	f := &Flags{fs: fs}
	dur := func(name string, v time.Duration, usage string, into func(*handoff.Config) *time.Duration) {
		d := DurationVar(fs, name, v, usage+note)
		f.knobs = append(f.knobs, knob{name, func(c *handoff.Config) error { *into(c) = d.D; return nil }})
	}
	num := func(name string, v int, usage string, into func(*handoff.Config) *int) {
		n := fs.Int(name, v, usage+note)
		f.knobs = append(f.knobs, knob{name, func(c *handoff.Config) error { *into(c) = *n; return nil }})
	}
	dur("poll", def.Poll, "how often the pane and the response file are observed",
		func(c *handoff.Config) *time.Duration { return &c.Poll })
	dur("idle-grace", def.IdleGrace, "how long the agent may sit quiet without the file, also the startup timeout",
		func(c *handoff.Config) *time.Duration { return &c.IdleGrace })
	dur("timeout", def.ResponseTimeout, "response timeout, from dispatch",
		func(c *handoff.Config) *time.Duration { return &c.ResponseTimeout })
	strict := fs.Bool("strict", def.Strict(), "fail without the response file; --strict=false falls back to the last output"+note)
	f.knobs = append(f.knobs, knob{"strict", func(c *handoff.Config) error { c.Fallback = !*strict; return nil }})
	num("max-poll-failures", def.MaxPollFailures, "fail after this many status polls in a row could not read the pane (a gone pane fails at once)",
		func(c *handoff.Config) *int { return &c.MaxPollFailures })
	num("reminders", def.Reminders, "when the grace runs out without the file, remind the agent up to N times (the startup guard re-armed each time) before failing or falling back",
		func(c *handoff.Config) *int { return &c.Reminders })
	answer := fs.String("auto-answer", def.AutoAnswer, "tmux key to type when the agent waits for the user (a permission prompt), e.g. Enter or y; default: answer nothing, say once on stderr that it needs you"+note)
	f.knobs = append(f.knobs, knob{"auto-answer", func(c *handoff.Config) error { c.AutoAnswer = *answer; return nil }})
	dur("answer-cooldown", def.AnswerCooldown, "least time between two automatic answers",
		func(c *handoff.Config) *time.Duration { return &c.AnswerCooldown })
	num("max-answers", def.MaxAnswers, "automatic answers per dispatch; the agent asking again after the last one ends the dispatch (exit 7)",
		func(c *handoff.Config) *int { return &c.MaxAnswers })
	dur("busy-wait", def.BusyWait, "before pasting, wait up to this long for an agent that works or waits for the user to show a ready prompt; then exit 8, nothing sent (0: fail at once when busy)",
		func(c *handoff.Config) *time.Duration { return &c.BusyWait })
	whenBusy := "wait"
	if def.QueueWhenBusy {
		whenBusy = "queue"
	}
	busy := fs.String("when-busy", whenBusy, "wait: no paste into a busy agent (see --busy-wait); queue: paste anyway, into the agent's own queue"+note)
	f.knobs = append(f.knobs, knob{"when-busy", func(c *handoff.Config) error {
		switch *busy {
		case "wait", "queue":
			c.QueueWhenBusy = *busy == "queue"
			return nil
		}
		return fmt.Errorf("--when-busy %q: want wait or queue", *busy)
	}})
	start := fs.Bool("start-on-output", def.StartOnOutput, "count a change of the screen since dispatch as the agent having started (a turn over before the first poll then costs one grace, not two)"+note)
	f.knobs = append(f.knobs, knob{"start-on-output", func(c *handoff.Config) error { c.StartOnOutput = *start; return nil }})
	return f
}

// Config is base with every flag's value, checked (handoff.Config.Validate).
func (f *Flags) Config(base handoff.Config) (handoff.Config, error) {
	return f.apply(base, func(string) bool { return true })
}

// Override is base with the values of the flags given on the command line
// only (replay: flags override the trace's config), checked.
func (f *Flags) Override(base handoff.Config) (handoff.Config, error) {
	given := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	return f.apply(base, func(name string) bool { return given[name] })
}

func (f *Flags) apply(base handoff.Config, use func(name string) bool) (handoff.Config, error) {
	c := base.WithDefaults()
	for _, k := range f.knobs {
		if !use(k.name) {
			continue
		}
		if err := k.set(&c); err != nil {
			return c, err
		}
	}
	return c, c.Validate()
}

// IsFlag reports whether name is one of the config flags.
func IsFlag(name string) bool {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	Add(fs, handoff.DefaultConfig(), "")
	return fs.Lookup(name) != nil
}
