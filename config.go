package handoff

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The spec's defaults, in one place.
const (
	DefaultPoll            = 2 * time.Second
	DefaultIdleGrace       = 30 * time.Second
	DefaultResponseTimeout = 1800 * time.Second
	// DefaultMaxResponseBytes bounds how much of a response file is read; a
	// larger file is an error, not a truncated answer.
	DefaultMaxResponseBytes = 8 << 20
	// DefaultAnswerCooldown and DefaultMaxAnswers bound automatic answers
	// (used only when Config.AutoAnswer is set).
	DefaultAnswerCooldown = 5 * time.Second
	DefaultMaxAnswers     = 3
	// DefaultMaxPollFailures is how many status polls in a row may fail
	// (tmux busy, a call that timed out) before the dispatch fails.
	DefaultMaxPollFailures = 3
	// DefaultBusyWait is how long a dispatch waits, before pasting, for a
	// busy agent to show a ready prompt.
	DefaultBusyWait = 60 * time.Second
)

// Config holds the knobs of one wait. One stance everywhere (NewCore,
// Resume, Wait, Replay): the zero Config is the spec's defaults; any other
// Config is taken as it is and must pass Validate, so start from
// DefaultConfig and change what you need. Fields are not defaulted one by one
// because a zero idle grace is a real setting (give up on the first quiet
// observation), not a missing one. Strict handoff, the spec's default, is the
// zero Fallback. Its JSON form (MarshalJSON: durations in seconds, the keys
// of ConfigFields) is the one a trace, a state file and the service's API
// share; errors name the field (ConfigError).
type Config struct {
	// Poll is how often the terminal and the response file are observed.
	Poll time.Duration
	// IdleGrace is how long the terminal must stay quiet (consecutive
	// idle/completed observations) without a response file before the wait
	// gives up on the file. It is also the startup timeout. Zero is allowed.
	IdleGrace time.Duration
	// ResponseTimeout bounds the whole wait, measured from dispatch.
	ResponseTimeout time.Duration
	// Fallback turns strict handoff off: when the grace runs out without a
	// response file, the terminal's last output is the response instead of
	// an ErrNoResponseFile failure.
	Fallback bool
	// MaxResponseBytes is the largest response file that will be read.
	MaxResponseBytes int64

	// Reminders is how many times, when the grace runs out without a
	// response file, the agent is sent a short reminder naming the file
	// (and the startup guard armed again) before the wait fails or falls
	// back. 0, the default, is the spec's behaviour. It needs a wait that
	// can send (fsm.SendAndWait).
	Reminders int
	// AutoAnswer is the tmux key (send-keys syntax: "Enter", "y", "1") typed
	// when the agent waits for the user, such as at a permission prompt.
	// "" (the default) types nothing: the prompt is reported once as needing
	// attention and the wait goes on, as the spec says.
	AutoAnswer string
	// AnswerCooldown is the least time between two automatic answers, so a
	// prompt that takes a moment to go away is not answered twice.
	AnswerCooldown time.Duration
	// MaxAnswers caps the automatic answers of one dispatch; the agent
	// waiting again after the last one fails the dispatch (ErrNeedsUser).
	MaxAnswers int
	// StartOnOutput counts a change of the screen since the first
	// observation as the agent having started, even if no observation saw
	// it working: a turn over before the first poll then costs one grace,
	// not two. Off by default (the spec's startup guard); it needs a
	// terminal that is a Fingerprinter.
	StartOnOutput bool
	// MaxPollFailures is how many consecutive status polls may fail (the
	// terminal could not be read, but is not gone) before the dispatch
	// fails with a terminal error carrying the last cause. A failed poll is
	// retried on the next one; a terminal that is gone, or an error status,
	// still ends the dispatch at once. At least 1 (1: no retry).
	MaxPollFailures int
	// BusyWait bounds how long a dispatch that is about to paste waits for
	// an agent that is working or waiting for the user (any status but
	// idle/completed) to show a ready prompt: a prompt pasted into a busy
	// agent lands in its queue and its answer would come after the earlier
	// turn's. Past the bound the dispatch fails with ErrAgentBusy and
	// nothing is sent. Zero looks once and fails at once when busy.
	BusyWait time.Duration
	// QueueWhenBusy pastes without looking whether the agent is busy: the
	// prompt goes to the agent's own queue (the behaviour before BusyWait).
	QueueWhenBusy bool
}

// DefaultConfig returns the spec's defaults: poll 2 s, idle grace 30 s,
// response timeout 1800 s, strict handoff on; and a response file of at
// most 8 MiB, three failed status polls in a row at most, and up to 60 s of
// waiting for a busy agent before pasting.
func DefaultConfig() Config {
	return Config{
		Poll:             DefaultPoll,
		IdleGrace:        DefaultIdleGrace,
		ResponseTimeout:  DefaultResponseTimeout,
		MaxResponseBytes: DefaultMaxResponseBytes,
		AnswerCooldown:   DefaultAnswerCooldown,
		MaxAnswers:       DefaultMaxAnswers,
		MaxPollFailures:  DefaultMaxPollFailures,
		BusyWait:         DefaultBusyWait,
	}
}

// WithDefaults returns DefaultConfig for the zero Config and c otherwise.
func (c Config) WithDefaults() Config {
	if c == (Config{}) {
		return DefaultConfig()
	}
	return c
}

// Strict reports whether strict handoff is on (no fallback to the last
// output), the spec's default.
func (c Config) Strict() bool { return !c.Fallback }

// ErrInvalidConfig is matched (errors.Is) by every *ConfigError: a Config
// that Validate refuses, or a JSON form that cannot be read.
var ErrInvalidConfig = errors.New("invalid config")

// ConfigError is one Config field that is wrong, named as in the JSON form
// ("poll", "idle_grace", …), so a state file, a trace and an API answer can
// point at it. It matches ErrInvalidConfig and its Err.
type ConfigError struct {
	Field string
	Err   error
}

// Error names the field and what is wrong with it.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("%v: %q: %v", ErrInvalidConfig, e.Field, e.Err)
}

// Unwrap returns ErrInvalidConfig and the cause.
func (e *ConfigError) Unwrap() []error { return []error{ErrInvalidConfig, e.Err} }

func configErr(field, format string, a ...any) error {
	return &ConfigError{Field: field, Err: fmt.Errorf(format, a...)}
}

// StartupTimeout is how long the startup guard waits for the agent to be seen
// working before it is released: the idle grace, so one knob bounds both how
// long a quiet agent may stay quiet and how long a start may take to show.
func (c Config) StartupTimeout() time.Duration { return c.IdleGrace }

// Validate reports a config that cannot drive a wait, as a *ConfigError
// naming the field. The zero Config is valid: it means the defaults.
func (c Config) Validate() error {
	c = c.WithDefaults()
	const hint = " (start from handoff.DefaultConfig())"
	switch {
	case c.Poll <= 0:
		return configErr("poll", "poll interval must be positive, got %v"+hint, c.Poll)
	case c.IdleGrace < 0:
		return configErr("idle_grace", "idle grace must not be negative, got %v"+hint, c.IdleGrace)
	case c.ResponseTimeout <= 0:
		return configErr("response_timeout", "response timeout must be positive, got %v"+hint, c.ResponseTimeout)
	case c.MaxResponseBytes <= 0:
		return configErr("max_response_bytes", "max response bytes must be positive, got %d"+hint, c.MaxResponseBytes)
	case c.Reminders < 0:
		return configErr("reminders", "reminders must not be negative, got %d", c.Reminders)
	case c.AnswerCooldown < 0:
		return configErr("answer_cooldown", "answer cooldown must not be negative, got %v", c.AnswerCooldown)
	case c.MaxAnswers < 0:
		return configErr("max_answers", "max answers must not be negative, got %d", c.MaxAnswers)
	case c.BusyWait < 0:
		return configErr("busy_wait", "busy wait must not be negative, got %v", c.BusyWait)
	case c.MaxPollFailures < 1:
		return configErr("max_poll_failures", "max poll failures must be at least 1, got %d"+hint, c.MaxPollFailures)
	}
	return nil
}

// ParseDuration reads a duration the way the command line and the trace
// format take them: a Go duration ("1.5s", "500ms") or a bare number of seconds
// ("2", "0.5"). Negative durations are refused.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*float64(time.Second) > math.MaxInt64 {
			return 0, fmt.Errorf("duration %q is out of range (want a non-negative number of seconds)", s)
		}
		return time.Duration(math.Round(f * float64(time.Second))), nil
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
