package handoff

import (
	"errors"
	"fmt"
	"time"
)

// The spec's defaults, in one place.
const (
	DefaultPoll            = 2 * time.Second
	DefaultIdleGrace       = 30 * time.Second
	DefaultResponseTimeout = 1800 * time.Second
	DefaultStrict          = true
	// DefaultMaxResponseBytes bounds how much of a response file is read; a
	// larger file is an error, not a truncated answer.
	DefaultMaxResponseBytes = 8 << 20
)

// Config holds the knobs of one wait. Start from DefaultConfig: the zero
// value is not valid (strict handoff is on by default and zero durations make
// no sense).
type Config struct {
	// Poll is how often the terminal and the response file are observed.
	Poll time.Duration
	// IdleGrace is how long the terminal must stay quiet (consecutive
	// idle/completed observations) without a response file before the wait
	// gives up on the file. It is also the startup timeout.
	IdleGrace time.Duration
	// ResponseTimeout bounds the whole wait, measured from dispatch.
	ResponseTimeout time.Duration
	// Strict: when the grace runs out without a response file, fail
	// (ErrNoResponseFile) instead of returning the terminal's last output.
	Strict bool
	// MaxResponseBytes is the largest response file that will be read.
	MaxResponseBytes int64
}

// DefaultConfig returns the spec's defaults: poll 2 s, idle grace 30 s,
// response timeout 1800 s, strict handoff on.
func DefaultConfig() Config {
	return Config{
		Poll:             DefaultPoll,
		IdleGrace:        DefaultIdleGrace,
		ResponseTimeout:  DefaultResponseTimeout,
		Strict:           DefaultStrict,
		MaxResponseBytes: DefaultMaxResponseBytes,
	}
}

// ErrInvalidConfig is wrapped by Config.Validate's errors.
var ErrInvalidConfig = errors.New("invalid config")

// StartupTimeout is how long the startup guard waits for the agent to be seen
// working before it is released (design decision D2: the idle grace).
func (c Config) StartupTimeout() time.Duration { return c.IdleGrace }

// Validate reports a config that cannot drive a wait.
func (c Config) Validate() error {
	switch {
	case c.Poll <= 0:
		return fmt.Errorf("%w: poll interval must be positive, got %v", ErrInvalidConfig, c.Poll)
	case c.IdleGrace < 0:
		return fmt.Errorf("%w: idle grace must not be negative, got %v", ErrInvalidConfig, c.IdleGrace)
	case c.ResponseTimeout <= 0:
		return fmt.Errorf("%w: response timeout must be positive, got %v", ErrInvalidConfig, c.ResponseTimeout)
	case c.MaxResponseBytes <= 0:
		return fmt.Errorf("%w: max response bytes must be positive, got %d", ErrInvalidConfig, c.MaxResponseBytes)
	}
	return nil
}
