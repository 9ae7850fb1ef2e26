package configflag_test

import (
	"flag"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
)

// Each flag sets its knob; override takes only the flags given.
func TestConfigFlagsSetTheirKnobs(t *testing.T) {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	cf := configflag.Add(fs, handoff.DefaultConfig(), "")
	if err := fs.Parse([]string{"--poll", "0.5", "--idle-grace", "10s", "--timeout", "1m", "--strict=false",
		"--max-poll-failures", "5", "--reminders", "2", "--auto-answer", "y", "--answer-cooldown", "1s",
		"--max-answers", "4", "--busy-wait", "3s", "--when-busy", "queue", "--start-on-output"}); err != nil {
		t.Fatal(err)
	}
	got, err := cf.Config(handoff.DefaultConfig())
	want := handoff.Config{Poll: 500 * time.Millisecond, IdleGrace: 10 * time.Second, ResponseTimeout: time.Minute,
		Fallback: true, MaxResponseBytes: handoff.DefaultMaxResponseBytes, MaxPollFailures: 5, Reminders: 2,
		AutoAnswer: "y", AnswerCooldown: time.Second, MaxAnswers: 4, BusyWait: 3 * time.Second,
		QueueWhenBusy: true, StartOnOutput: true}
	if err != nil || got != want {
		t.Errorf("config %+v, %v\nwant %+v", got, err, want)
	}

	fs = flag.NewFlagSet("replay", flag.ContinueOnError)
	cf = configflag.Add(fs, handoff.DefaultConfig(), "")
	if err := fs.Parse([]string{"--reminders", "1"}); err != nil {
		t.Fatal(err)
	}
	base := handoff.DefaultConfig()
	base.Poll = time.Second
	got, err = cf.Override(base)
	if err != nil || got.Poll != time.Second || got.Reminders != 1 {
		t.Errorf("override %+v, %v: want the base's poll and the given reminders", got, err)
	}

	fs = flag.NewFlagSet("send", flag.ContinueOnError)
	cf = configflag.Add(fs, handoff.DefaultConfig(), "")
	if err := fs.Parse([]string{"--when-busy", "later"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cf.Config(handoff.DefaultConfig()); err == nil || !strings.Contains(err.Error(), "--when-busy") {
		t.Errorf("a bad --when-busy: %v", err)
	}
}
