// Package trace is the replay format: a dispatch written down as what the
// terminal showed, and when, so it can be replayed through the real engine
// on virtual time (Replay), attached to a bug report, or recorded from a
// live dispatch (Encoder).
//
// A trace is JSON Lines. An optional first line sets the configuration, in
// seconds (a field left out keeps its default):
//
//	{"config":{"poll":2,"idle_grace":30,"response_timeout":1800,"strict":true}}
//
// Every other line is a moment, "at" seconds after dispatch, in order (equal
// times are applied in file order), with any of:
//
//	"status"       the terminal reports this status from then on
//	               (idle, processing, completed, waiting_user_answer, error;
//	               any other value counts as "agent active")
//	"file"         the agent writes the response file with this text
//	               ("" writes an empty file)
//	"last_output"  the terminal's last output from then on (the fallback)
//
// Before the first line with a status the terminal reports "idle": the
// previous turn's prompt still on screen, which is the startup race the
// guard exists for. Durations are JSON numbers of seconds; strings holding a
// Go duration ("1.5s", "500ms") or a number of seconds are accepted too.
// Unknown keys, a missing or negative "at", "at" going backwards, an empty
// status and a config line anywhere but first are errors naming the line.
package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Config is a trace's configuration line. A nil field was not given and
// keeps whatever it is applied to.
type Config struct {
	Poll            *time.Duration
	IdleGrace       *time.Duration
	ResponseTimeout *time.Duration
	Strict          *bool
}

// ConfigOf returns the trace configuration that sets every field of cfg the
// format carries (a recorder writes this).
func ConfigOf(cfg handoff.Config) Config {
	return Config{Poll: &cfg.Poll, IdleGrace: &cfg.IdleGrace, ResponseTimeout: &cfg.ResponseTimeout, Strict: &cfg.Strict}
}

// Apply returns base with the fields c sets replaced.
func (c Config) Apply(base handoff.Config) handoff.Config {
	if c.Poll != nil {
		base.Poll = *c.Poll
	}
	if c.IdleGrace != nil {
		base.IdleGrace = *c.IdleGrace
	}
	if c.ResponseTimeout != nil {
		base.ResponseTimeout = *c.ResponseTimeout
	}
	if c.Strict != nil {
		base.Strict = *c.Strict
	}
	return base
}

// Line is one moment of a trace. A nil field did not change at that moment.
type Line struct {
	// At is the time since dispatch.
	At         time.Duration
	Status     *handoff.Status
	File       *string
	LastOutput *string
}

// Trace is a whole trace: its configuration line (nil if none) and its
// moments in time order.
type Trace struct {
	Config *Config
	Lines  []Line
}

// ErrMalformed is matched (errors.Is) by every error Read returns for bad
// input; the error itself is a *LineError naming the line.
var ErrMalformed = errors.New("malformed trace")

// LineError is a problem with one line of a trace (lines count from 1).
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("trace line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// Is makes every LineError match ErrMalformed.
func (e *LineError) Is(target error) bool { return target == ErrMalformed }

// seconds is a duration as the format writes it: a JSON number of seconds
// (a string with a Go duration or a number of seconds is read too).
type seconds time.Duration

func (s seconds) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, time.Duration(s).Seconds(), 'f', -1, 64), nil
}

func (s *seconds) UnmarshalJSON(b []byte) error {
	var f float64
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		d, err := ParseDuration(str)
		if err != nil {
			return err
		}
		*s = seconds(d)
		return nil
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("want a number of seconds, got %s", b)
	}
	if f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*float64(time.Second) > math.MaxInt64 {
		return fmt.Errorf("%s seconds is out of range (want a non-negative number)", b)
	}
	*s = seconds(math.Round(f * float64(time.Second)))
	return nil
}

// ParseDuration reads a duration the way the command line and the format
// take them: a Go duration ("1.5s", "500ms") or a bare number of seconds
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

type configJSON struct {
	Poll            *seconds `json:"poll,omitempty"`
	IdleGrace       *seconds `json:"idle_grace,omitempty"`
	ResponseTimeout *seconds `json:"response_timeout,omitempty"`
	Strict          *bool    `json:"strict,omitempty"`
}

type lineJSON struct {
	Config     *configJSON `json:"config,omitempty"`
	At         *seconds    `json:"at,omitempty"`
	Status     *string     `json:"status,omitempty"`
	File       *string     `json:"file,omitempty"`
	LastOutput *string     `json:"last_output,omitempty"`
}

// Read parses a trace. Blank lines are skipped. Errors name the line and
// match ErrMalformed.
func Read(r io.Reader) (Trace, error) {
	var t Trace
	br := bufio.NewReader(r)
	last := time.Duration(0)
	moments := 0
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return Trace{}, fmt.Errorf("read trace: %w", err)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			bad := func(format string, args ...any) error {
				return &LineError{Line: n, Err: fmt.Errorf(format, args...)}
			}
			var lj lineJSON
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if derr := dec.Decode(&lj); derr != nil {
				return Trace{}, bad("%v", jsonProblem(derr))
			}
			if dec.More() {
				return Trace{}, bad("extra data after the JSON object (one object per line)")
			}
			switch {
			case lj.Config != nil:
				if lj.At != nil || lj.Status != nil || lj.File != nil || lj.LastOutput != nil {
					return Trace{}, bad(`a config line holds only "config"`)
				}
				if t.Config != nil || moments > 0 {
					return Trace{}, bad(`"config" is only allowed on the first line`)
				}
				c := Config{Strict: lj.Config.Strict}
				c.Poll = (*time.Duration)(lj.Config.Poll)
				c.IdleGrace = (*time.Duration)(lj.Config.IdleGrace)
				c.ResponseTimeout = (*time.Duration)(lj.Config.ResponseTimeout)
				t.Config = &c
			case lj.At == nil:
				return Trace{}, bad(`missing "at" (seconds since dispatch)`)
			default:
				at := time.Duration(*lj.At)
				if at < last {
					return Trace{}, bad(`"at" goes backwards: %gs after %gs (lines must be in time order)`, at.Seconds(), last.Seconds())
				}
				if lj.Status != nil && strings.TrimSpace(*lj.Status) == "" {
					return Trace{}, bad(`"status" is empty`)
				}
				l := Line{At: at, File: lj.File, LastOutput: lj.LastOutput}
				if lj.Status != nil {
					st := handoff.Status(*lj.Status)
					l.Status = &st
				}
				t.Lines = append(t.Lines, l)
				last = at
				moments++
			}
		}
		if err == io.EOF {
			return t, nil
		}
	}
}

// jsonProblem rewords decoder errors for a person editing a trace by hand.
func jsonProblem(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON: %v", err)
	case errors.As(err, &typ):
		return fmt.Errorf("%q: want %v, got a JSON %s", typ.Field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return fmt.Errorf("unknown key %s (known: config, at, status, file, last_output; config: poll, idle_grace, response_timeout, strict)",
			strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return err
}

// Encoder writes a trace line by line, so a recording survives a crash up
// to its last moment. It refuses what Read would refuse.
type Encoder struct {
	w     io.Writer
	lines int
	last  time.Duration
}

// NewEncoder returns an Encoder writing to w.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// ErrOrder is returned by an Encoder asked to write out of order.
var ErrOrder = errors.New("trace out of order")

// Config writes the configuration line; it must come first.
func (e *Encoder) Config(c Config) error {
	if e.lines > 0 {
		return fmt.Errorf("%w: the config line must be the first line", ErrOrder)
	}
	return e.write(lineJSON{Config: &configJSON{
		Poll: (*seconds)(c.Poll), IdleGrace: (*seconds)(c.IdleGrace),
		ResponseTimeout: (*seconds)(c.ResponseTimeout), Strict: c.Strict,
	}})
}

// Line writes one moment; At must not be negative nor before the previous
// moment's.
func (e *Encoder) Line(l Line) error {
	if l.At < 0 || l.At < e.last {
		return fmt.Errorf("%w: at %v after %v", ErrOrder, l.At, e.last)
	}
	if l.Status != nil && strings.TrimSpace(string(*l.Status)) == "" {
		return fmt.Errorf("trace: empty status at %v", l.At)
	}
	at := seconds(l.At)
	lj := lineJSON{At: &at, File: l.File, LastOutput: l.LastOutput}
	if l.Status != nil {
		s := string(*l.Status)
		lj.Status = &s
	}
	if err := e.write(lj); err != nil {
		return err
	}
	e.last = l.At
	return nil
}

func (e *Encoder) write(lj lineJSON) error {
	b, err := json.Marshal(lj)
	if err != nil {
		return fmt.Errorf("encode trace line: %w", err)
	}
	if _, err := e.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	e.lines++
	return nil
}

// Write writes a whole trace.
func Write(w io.Writer, t Trace) error {
	e := NewEncoder(w)
	if t.Config != nil {
		if err := e.Config(*t.Config); err != nil {
			return err
		}
	}
	for _, l := range t.Lines {
		if err := e.Line(l); err != nil {
			return err
		}
	}
	return nil
}
