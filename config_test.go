package handoff_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

func TestDurationsAcceptGoDurationsAndSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"1.5s": 1500 * time.Millisecond, "500ms": 500 * time.Millisecond, "2": 2 * time.Second,
		"0.25": 250 * time.Millisecond, " 3m ": 3 * time.Minute, "0": 0,
	} {
		if got, err := handoff.ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "-2s", "two", "", "1e300"} {
		if _, err := handoff.ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

// The JSON form writes every key, durations in seconds, and reads back the
// same Config.
func TestConfigJSONRoundTrips(t *testing.T) {
	c := handoff.DefaultConfig()
	c.Poll, c.Fallback, c.AutoAnswer, c.BusyWait = 250*time.Millisecond, true, "Enter", 0
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"poll":0.25,"idle_grace":30,"response_timeout":1800,"strict":false,"max_response_bytes":8388608,` +
		`"max_poll_failures":3,"reminders":0,"auto_answer":"Enter","answer_cooldown":5,"max_answers":3,` +
		`"busy_wait":0,"queue_when_busy":false,"start_on_output":false}`
	if string(b) != want {
		t.Errorf("wrote %s\nwant  %s", b, want)
	}
	var back handoff.Config
	if err := json.Unmarshal(b, &back); err != nil || back != c {
		t.Errorf("read back %+v, %v; want %+v", back, err, c)
	}
	if b, _ := json.Marshal(handoff.Config{}); !strings.Contains(string(b), `"poll":2,`) {
		t.Errorf("the zero Config is written as %s, want the defaults", b)
	}
	if len(handoff.ConfigFields()) != strings.Count(want, ":") {
		t.Errorf("ConfigFields %v do not match the keys written", handoff.ConfigFields())
	}
}

// A key left out is the default; the older encodings of a duration (a Go
// duration string, as state files kept it; a string of seconds) still read.
func TestConfigJSONReadsLeftOutKeysAsDefaultsAndOldDurations(t *testing.T) {
	var c handoff.Config
	if err := json.Unmarshal([]byte(`{"poll":"500ms","idle_grace":"1m0s","response_timeout":"90","busy_wait":null}`), &c); err != nil {
		t.Fatal(err)
	}
	want := handoff.DefaultConfig()
	want.Poll, want.IdleGrace, want.ResponseTimeout = 500*time.Millisecond, time.Minute, 90*time.Second
	if c != want {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
	base := handoff.DefaultConfig()
	base.Reminders = 2
	if err := json.Unmarshal([]byte(`{"strict":false}`), &base); err != nil || base.Reminders != 2 || !base.Fallback {
		t.Errorf("decoding onto a config: %+v, %v; want its other fields kept", base, err)
	}
}

// What is wrong is a *ConfigError naming the key, from reading and from
// Validate alike.
func TestConfigErrorsNameTheField(t *testing.T) {
	for body, field := range map[string]string{
		`{"pol":2}`:                  "pol",
		`{"poll":"soon"}`:            "poll",
		`{"idle_grace":-3}`:          "idle_grace",
		`{"strict":"yes"}`:           "strict",
		`{"max_answers":1.5}`:        "max_answers",
		`{"auto_answer":1}`:          "auto_answer",
		`{"poll":0}`:                 "poll",
		`{"max_poll_failures":0}`:    "max_poll_failures",
		`{"answer_cooldown":"-1s"}`:  "answer_cooldown",
		`{"max_response_bytes":-1}`:  "max_response_bytes",
		`{"reminders":-1}`:           "reminders",
		`{"response_timeout":false}`: "response_timeout",
	} {
		var c handoff.Config
		err := json.Unmarshal([]byte(body), &c)
		if err == nil {
			err = c.Validate()
		}
		var ce *handoff.ConfigError
		if !errors.As(err, &ce) || ce.Field != field || !errors.Is(err, handoff.ErrInvalidConfig) {
			t.Errorf("%s: %v; want a ConfigError naming %q", body, err, field)
		}
	}
}
