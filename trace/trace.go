// Package trace is the replay format: a dispatch written down as what the
// terminal showed, and when, so it can be replayed through the real engine
// on virtual time (Replay), attached to a bug report, or recorded from a
// live dispatch (Encoder).
//
// A trace is JSON Lines. An optional first line sets the configuration in
// handoff.Config's JSON form (durations in seconds; a key left out keeps its
// default):
//
//	{"config":{"poll":2,"idle_grace":30,"response_timeout":1800,"strict":true}}
//
// The config may also give the dispatch's "receipt" (handoff.Receipt): a
// "file" whose first line carries another receipt is then an earlier
// prompt's answer (answer_mismatched), as it was live. Without one, any
// file is taken.
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
//	"file_unusable" something that cannot be an answer is at the response
//	               path from then on: "symlink", "not_regular", "oversized"
//	               (over max_response_bytes), "unreadable" or "gone" (the
//	               last two are replayed as a thing that is not a regular
//	               file: the same ending)
//	"changed"      true: the screen differs from the first observation's
//	               from then on (what start_on_output reacts to)
//	"submitted"    what the agent's screen showed it took since the prompt
//	               was sent, read when the engine took an answer (the check
//	               at the end, handoff.Submission: {"messages":[{"taken":
//	               "whole"|"fold"|"other"|"unknown","quote":"…"}],
//	               "cannot_tell":"…"}); the replay reads it back at the
//	               answer it goes with
//	"reason"       why the classifier read that status (its
//	               Classification.Reason; written by the recorder, shown by
//	               explain --record; a replay does not use it)
//
// The config carries every knob of the recorded wait, not only the spec's
// four ("max_response_bytes", "reminders", "auto_answer" …: see
// handoff.ConfigFields). A replay sends reminders and types answers into
// nothing, as the live wait did into the agent, so it decides the same.
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
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Config is a trace's configuration line: the wait's config in
// handoff.Config's JSON form, and the dispatch's receipt.
type Config struct {
	// Wait is the config the wait ran with; a key the line leaves out is
	// its default.
	Wait handoff.Config
	// Receipt is the dispatch's receipt; "" for none (any file is taken).
	// It is not part of handoff.Config: Replay reads it from here.
	Receipt handoff.Receipt
}

// WaitConfig is the config a replay of t runs with: its config line's, or
// the defaults when it has none.
func (t Trace) WaitConfig() handoff.Config {
	if t.Config == nil {
		return handoff.DefaultConfig()
	}
	return t.Config.Wait.WithDefaults()
}

// Line is one moment of a trace. A nil field did not change at that moment.
type Line struct {
	// At is the time since dispatch.
	At         time.Duration
	Status     *handoff.Status
	File       *string
	LastOutput *string
	// Unusable: what is at the response path cannot be an answer, and why.
	Unusable *responsefile.Problem
	// Changed: the screen differs from the first observation's.
	Changed bool
	// Reason is the classifier's reason for Status, when recorded; evidence
	// for a person, not a fact the replay decides on.
	Reason string
	// Submitted is what the agent's screen showed it took since the prompt
	// was sent, from then on (the check at the end reads it).
	Submitted *handoff.Submission
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

// Error names the line and the problem.
func (e *LineError) Error() string { return fmt.Sprintf("trace line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// Is makes every LineError match ErrMalformed.
func (e *LineError) Is(target error) bool { return target == ErrMalformed }

// seconds is a duration as the format writes it: a JSON number of seconds
// (a string with a Go duration or a number of seconds is read too).
type seconds time.Duration

// MarshalJSON writes the duration as a number of seconds.
func (s seconds) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, time.Duration(s).Seconds(), 'f', -1, 64), nil
}

// UnmarshalJSON reads a number of seconds or a duration string (the syntax
// of handoff.ParseDuration).
func (s *seconds) UnmarshalJSON(b []byte) error {
	text := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
	} else if _, err := strconv.ParseFloat(text, 64); err != nil {
		return fmt.Errorf("want a number of seconds (or a duration string such as \"1.5s\"), got %s", b)
	}
	d, err := handoff.ParseDuration(text)
	if err != nil {
		return err
	}
	*s = seconds(d)
	return nil
}

type lineJSON struct {
	Config       json.RawMessage     `json:"config,omitempty"`
	At           *seconds            `json:"at,omitempty"`
	Status       *string             `json:"status,omitempty"`
	File         *string             `json:"file,omitempty"`
	FileUnusable *string             `json:"file_unusable,omitempty"`
	Changed      bool                `json:"changed,omitempty"`
	LastOutput   *string             `json:"last_output,omitempty"`
	Reason       string              `json:"reason,omitempty"`
	Submitted    *handoff.Submission `json:"submitted,omitempty"`
}

// Read parses a trace. Blank lines are skipped. Errors name the line and
// match ErrMalformed.
func Read(r io.Reader) (Trace, error) {
	var t Trace
	br := bufio.NewReader(r)
	last := time.Duration(0)
	for n := 1; ; n++ {
		raw, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return Trace{}, fmt.Errorf("read trace: %w", err)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			if perr := t.parseLine(raw, &last); perr != nil {
				return Trace{}, &LineError{Line: n, Err: perr}
			}
		}
		if err == io.EOF {
			return t, nil
		}
	}
}

// ReadFile parses the trace in the file at path (Read); a parse error
// names the file.
func ReadFile(path string) (Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return Trace{}, err
	}
	defer f.Close()
	t, err := Read(f)
	if err != nil {
		return Trace{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// parseLine adds one non-blank line to t. Fields are decoded one by one so
// each problem can be named by its key.
func (t *Trace) parseLine(raw []byte, last *time.Duration) error {
	fields, err := object(raw)
	if err != nil {
		return err
	}
	if err := onlyKeys(fields, "config", "at", "status", "file", "file_unusable", "changed", "last_output", "reason", "submitted"); err != nil {
		return err
	}
	if cj, ok := fields["config"]; ok {
		if len(fields) > 1 {
			return errors.New(`a config line holds only "config"`)
		}
		if t.Config != nil || len(t.Lines) > 0 {
			return errors.New(`"config" is only allowed on the first line`)
		}
		c, err := parseConfig(cj)
		if err != nil {
			return err
		}
		t.Config = &c
		return nil
	}
	at, ok, err := durationField(fields, "at")
	switch {
	case err != nil:
		return err
	case !ok:
		return errors.New(`missing "at" (seconds since dispatch)`)
	case at < *last:
		return fmt.Errorf(`"at" goes backwards: %gs after %gs (lines must be in time order)`, at.Seconds(), last.Seconds())
	}
	l, err := parseObservation(fields, at)
	if err != nil {
		return err
	}
	t.Lines = append(t.Lines, l)
	*last = at
	return nil
}

// parseObservation reads an observation line's fields after "at": what the
// poll saw (status, file, last output, reason, an unusable file, the
// submission reading, whether the screen changed).
func parseObservation(fields map[string]json.RawMessage, at time.Duration) (Line, error) {
	l := Line{At: at}
	status, err := stringField(fields, "status")
	if err != nil {
		return Line{}, err
	}
	if status != nil {
		if strings.TrimSpace(*status) == "" {
			return Line{}, errors.New(`"status" is empty`)
		}
		st := handoff.Status(*status)
		l.Status = &st
	}
	if l.File, err = stringField(fields, "file"); err != nil {
		return Line{}, err
	}
	if l.LastOutput, err = stringField(fields, "last_output"); err != nil {
		return Line{}, err
	}
	reason, err := stringField(fields, "reason")
	if err != nil {
		return Line{}, err
	}
	if reason != nil {
		l.Reason = *reason
	}
	problem, err := stringField(fields, "file_unusable")
	if err != nil {
		return Line{}, err
	}
	if problem != nil {
		p := responsefile.Problem(*problem)
		if !slices.Contains(responsefile.Problems(), p) {
			return Line{}, fmt.Errorf(`"file_unusable": unknown problem %q (known: %v)`, p, responsefile.Problems())
		}
		if l.File != nil {
			return Line{}, errors.New(`a line holds "file" or "file_unusable", not both`)
		}
		l.Unusable = &p
	}
	if v, ok := fields["submitted"]; ok && string(v) != "null" {
		var sub handoff.Submission
		if err := json.Unmarshal(v, &sub); err != nil {
			return Line{}, fmt.Errorf(`"submitted": %v`, err)
		}
		l.Submitted = &sub
	}
	if v, ok := fields["changed"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &l.Changed); err != nil {
			return Line{}, fmt.Errorf(`"changed": want true or false, got %s`, v)
		}
	}
	return l, nil
}

// parseConfig reads the config line: handoff.Config's JSON form and
// "receipt".
func parseConfig(raw json.RawMessage) (Config, error) {
	fields, err := object(raw)
	if err != nil {
		return Config{}, fmt.Errorf(`"config": %w`, err)
	}
	var c Config
	receipt, err := stringField(fields, "receipt")
	if err != nil {
		return Config{}, fmt.Errorf(`"config": %w`, err)
	}
	if receipt != nil {
		c.Receipt = handoff.Receipt(*receipt)
		if err := c.Receipt.Validate(); err != nil {
			return Config{}, fmt.Errorf(`"config": "receipt": %w`, err)
		}
	}
	delete(fields, "receipt")
	rest, err := json.Marshal(fields)
	if err != nil {
		return Config{}, fmt.Errorf(`"config": %w`, err)
	}
	if err := json.Unmarshal(rest, &c.Wait); err != nil {
		return Config{}, fmt.Errorf(`"config": %w`, err)
	}
	return c, nil
}

// object decodes one JSON object, refusing anything after it.
func object(raw []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&fields); err != nil {
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ):
			return nil, fmt.Errorf("want a JSON object, got a JSON %s", typ.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("not valid JSON: the object is not closed")
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if fields == nil {
		return nil, errors.New("want a JSON object, got null")
	}
	if dec.More() {
		return nil, errors.New("extra data after the JSON object (one object per line)")
	}
	return fields, nil
}

// onlyKeys refuses a key not in known (the first one, in sorted order).
func onlyKeys(fields map[string]json.RawMessage, known ...string) error {
	var unknown []string
	for k := range fields {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("unknown key %q (known keys: %s)", unknown[0], strings.Join(known, ", "))
}

// durationField reads key as seconds; ok is false when it is absent or null.
func durationField(fields map[string]json.RawMessage, key string) (d time.Duration, ok bool, err error) {
	v, present := fields[key]
	if !present || string(v) == "null" {
		return 0, false, nil
	}
	var s seconds
	if err := json.Unmarshal(v, &s); err != nil {
		return 0, false, fmt.Errorf("%q: %v", key, err)
	}
	return time.Duration(s), true, nil
}

// stringField reads key as a string; nil when it is absent or null.
func stringField(fields map[string]json.RawMessage, key string) (*string, error) {
	v, present := fields[key]
	if !present || string(v) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("%q: want a string, got %s", key, v)
	}
	return &s, nil
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
	b, err := json.Marshal(c.Wait)
	if err != nil {
		return fmt.Errorf("encode trace config: %w", err)
	}
	if c.Receipt != "" {
		r, _ := json.Marshal(c.Receipt)
		b = append(append(append(b[:len(b)-1], `,"receipt":`...), r...), '}')
	}
	return e.write(lineJSON{Config: b})
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
	if l.File != nil && l.Unusable != nil {
		return fmt.Errorf("trace: a file and an unusable file at %v", l.At)
	}
	lj := lineJSON{At: &at, File: l.File, LastOutput: l.LastOutput, Changed: l.Changed, Reason: l.Reason, Submitted: l.Submitted}
	if l.Unusable != nil {
		p := string(*l.Unusable)
		lj.FileUnusable = &p
	}
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
