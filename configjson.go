package handoff

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ConfigFields are the JSON form's keys, in the order MarshalJSON writes them.
func ConfigFields() []string {
	var c Config
	fields := c.fields(new(bool))
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// configField is one key of the JSON form and the field it reads and writes.
type configField struct {
	name string
	// v points at the field: *time.Duration (seconds), *bool, *int, *int64
	// or *string.
	v any
}

// fields lists c's keys. strict stands for !Fallback: the caller sets it
// before writing and copies it back after reading.
func (c *Config) fields(strict *bool) []configField {
	return []configField{
		{"poll", &c.Poll}, {"idle_grace", &c.IdleGrace}, {"response_timeout", &c.ResponseTimeout},
		{"strict", strict}, {"max_response_bytes", &c.MaxResponseBytes}, {"max_poll_failures", &c.MaxPollFailures},
		{"reminders", &c.Reminders}, {"auto_answer", &c.AutoAnswer}, {"answer_cooldown", &c.AnswerCooldown},
		{"max_answers", &c.MaxAnswers}, {"busy_wait", &c.BusyWait}, {"queue_when_busy", &c.QueueWhenBusy},
		{"start_on_output", &c.StartOnOutput},
	}
}

// MarshalJSON writes the JSON form of a Config, one object, the same in a trace's config
// line, a state file (send --state, the service, the Temporal worker) and
// the service's API:
//
//	{"poll":2,"idle_grace":30,"response_timeout":1800,"strict":true,
//	 "max_response_bytes":8388608,"max_poll_failures":3,"reminders":0,
//	 "auto_answer":"","answer_cooldown":5,"max_answers":3,"busy_wait":60,
//	 "queue_when_busy":false,"start_on_output":false}
//
// Durations are JSON numbers of seconds (0.5 is half a second). A string
// holding a Go duration ("1.5s", "2m") or a number of seconds ("2") is read
// too: state files written before this form kept "2s". A key left out, or
// null, keeps the value decoded into — the defaults, for a zero Config —
// so {"poll":1} is the defaults with a one-second poll. An unknown key, or a
// value of the wrong kind, is a *ConfigError naming the key. Reading does not
// Validate: a caller about to use the Config does.
//
// Every key is written; the zero Config is written as the defaults it
// means.
func (c Config) MarshalJSON() ([]byte, error) {
	c = c.WithDefaults()
	strict := c.Strict()
	b := make([]byte, 0, 320)
	b = append(b, '{')
	for i, f := range c.fields(&strict) {
		if i > 0 {
			b = append(b, ',')
		}
		// The keys are plain words; the numbers and booleans are written
		// without reflection (a state file holds a Config and is written
		// several times per dispatch).
		b = append(append(append(b, '"'), f.name...), '"', ':')
		switch v := f.v.(type) {
		case *time.Duration:
			b = strconv.AppendFloat(b, v.Seconds(), 'f', -1, 64)
		case *bool:
			b = strconv.AppendBool(b, *v)
		case *int:
			b = strconv.AppendInt(b, int64(*v), 10)
		case *int64:
			b = strconv.AppendInt(b, *v, 10)
		default:
			j, err := json.Marshal(f.v)
			if err != nil {
				return nil, fmt.Errorf("config %q: %w", f.name, err)
			}
			b = append(b, j...)
		}
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the JSON form onto c (onto the defaults when c is
// the zero Config); see ConfigFields.
func (c *Config) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("%w: want a JSON object of settings, got %s", ErrInvalidConfig, short(data))
	}
	if raw == nil { // null: nothing given
		return nil
	}
	next := c.WithDefaults()
	strict := next.Strict()
	fields := next.fields(&strict)
	for key := range raw {
		if !knownField(fields, key) {
			return configErr(key, "unknown key (known keys: %s)", strings.Join(ConfigFields(), ", "))
		}
	}
	for _, f := range fields {
		v, ok := raw[f.name]
		if !ok || string(v) == "null" {
			continue
		}
		if err := decodeField(f, v); err != nil {
			return &ConfigError{Field: f.name, Err: err}
		}
	}
	next.Fallback = !strict
	*c = next
	return nil
}

func knownField(fields []configField, key string) bool {
	for _, f := range fields {
		if f.name == key {
			return true
		}
	}
	return false
}

// decodeField reads v into f's field, saying what kind of value it wants.
func decodeField(f configField, v json.RawMessage) error {
	if d, ok := f.v.(*time.Duration); ok {
		text := string(v)
		if v[0] == '"' {
			if err := json.Unmarshal(v, &text); err != nil {
				return err
			}
		} else if _, err := strconv.ParseFloat(text, 64); err != nil {
			return fmt.Errorf("want a number of seconds (or a duration string such as \"1.5s\"), got %s", short(v))
		}
		parsed, err := ParseDuration(text)
		if err != nil {
			return err
		}
		*d = parsed
		return nil
	}
	if err := json.Unmarshal(v, f.v); err != nil {
		var want string
		switch f.v.(type) {
		case *bool:
			want = "true or false"
		case *string:
			want = "a string"
		default:
			want = "a whole number"
		}
		return fmt.Errorf("want %s, got %s", want, short(v))
	}
	return nil
}

// short is raw JSON cut for a message.
func short(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
