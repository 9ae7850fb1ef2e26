package fsm_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func obs(s float64, st handoff.Status, f fsm.FileState) fsm.Observation {
	return fsm.Observation{At: at(s), Status: st, File: f}
}

// step feeds ob to c as the driver would: a file in the observation
// (FileReady, FileBlank, FileMismatched) is reported present, and when the
// core asks for it to be consumed, FileConsumed says what it held.
func step(c *fsm.Core, ob fsm.Observation) fsm.Ready {
	held := ob.File
	if held == fsm.FilePresent {
		held = fsm.FileReady
	}
	if ob.File != fsm.FileAbsent {
		ob.File = fsm.FilePresent
	}
	r := c.Step(ob)
	if r.Action == fsm.ConsumeFile {
		r = c.FileConsumed(held)
	}
	return r
}

// ending is the name of the ready's outcome, "" while the wait goes on.
func ending(r fsm.Ready) string {
	if r.Outcome == nil {
		return ""
	}
	return r.Outcome.Name
}

func TestCoreDeadlinesFollowTheState(t *testing.T) {
	cfg := handoff.DefaultConfig() // grace 30 s, timeout 1800 s
	c := fsm.NewCore(cfg, t0)
	if got := c.Deadline(); !got.Equal(at(30)) {
		t.Errorf("AwaitingStart deadline %v, want the startup timeout at 30 s", got.Sub(t0))
	}
	o := c.Step(obs(2, handoff.StatusProcessing, fsm.FileAbsent))
	if o.State != handoff.Working || !o.Deadline.Equal(at(1800)) {
		t.Errorf("Working: state %s deadline %v, want the response timeout", o.State, o.Deadline.Sub(t0))
	}
	o = c.Step(obs(1780, handoff.StatusIdle, fsm.FileAbsent))
	if o.State != handoff.IdleGrace || !o.Deadline.Equal(at(1800)) {
		t.Errorf("IdleGrace near the end: deadline %v, want the response timeout (earlier than the grace)", o.Deadline.Sub(t0))
	}
	if got := c.WindowEnd(); !got.Equal(at(1810)) {
		t.Errorf("grace window ends %v, want 1810 s", got.Sub(t0))
	}
	o = c.Step(obs(1800, handoff.StatusIdle, fsm.FileAbsent))
	if o.State != handoff.Failed || o.Outcome == nil || !errors.Is(o.Outcome.Err, handoff.ErrNoResponseFile) || !o.Deadline.IsZero() {
		t.Errorf("at the response deadline while quiet: %s %s deadline %v", o.State, ending(o), o.Deadline)
	}
}

func TestFinishedCoreRepeatsItsEnding(t *testing.T) {
	for _, tc := range []struct {
		name   string
		strict bool
		obs    []fsm.Observation
		want   string // the outcome's name
	}{
		{"file", true, []fsm.Observation{obs(0, handoff.StatusIdle, fsm.FileReady)}, "file"},
		{"fallback", false, []fsm.Observation{obs(30, handoff.StatusIdle, fsm.FileAbsent), obs(60, handoff.StatusIdle, fsm.FileAbsent)}, "fallback"},
		{"terminal error", true, []fsm.Observation{obs(0, handoff.StatusError, fsm.FileAbsent)}, "terminal_error"},
		{"timeout", true, []fsm.Observation{obs(1800, handoff.StatusProcessing, fsm.FileAbsent)}, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := handoff.DefaultConfig()
			cfg.Fallback = !tc.strict
			c := fsm.NewCore(cfg, t0)
			var o fsm.Ready
			for _, ob := range tc.obs {
				o = step(c, ob)
			}
			if ending(o) != tc.want {
				t.Fatalf("ended %q, want %q", ending(o), tc.want)
			}
			polls := c.Snapshot().Polls
			again := c.Step(obs(5000, handoff.StatusProcessing, fsm.FilePresent))
			if ending(again) != tc.want || len(again.Transitions) != 0 || again.Action != "" || c.Snapshot().Polls != polls {
				t.Errorf("stepping a finished core: %+v", again)
			}
			// A resumed finished core says the same.
			r, err := fsm.Resume(cfg, c.Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			if o := r.Step(obs(6000, handoff.StatusIdle, fsm.FileAbsent)); ending(o) != tc.want {
				t.Errorf("resumed: %q", ending(o))
			}
		})
	}
}

// A wait saved mid-way (through JSON) and resumed decides exactly as the
// uninterrupted one.
func TestSnapshotResumeContinuesTheSameWait(t *testing.T) {
	cfg := handoff.DefaultConfig()
	timeline := []fsm.Observation{
		obs(0, handoff.StatusIdle, fsm.FileAbsent),
		obs(30, handoff.StatusIdle, fsm.FileAbsent), // startup timeout
		obs(40, handoff.StatusIdle, fsm.FileAbsent),
		obs(50, handoff.StatusProcessing, fsm.FilePresent),
		obs(60, handoff.StatusIdle, fsm.FileAbsent),
		obs(80, handoff.StatusIdle, fsm.FileAbsent),
		obs(90, handoff.StatusIdle, fsm.FileAbsent), // grace out
	}
	for cut := 0; cut <= len(timeline); cut++ {
		whole := fsm.NewCore(cfg, t0)
		split := fsm.NewCore(cfg, t0)
		var want, got []fsm.Ready
		for i, ob := range timeline {
			if i == cut {
				b, err := json.Marshal(split.Snapshot())
				if err != nil {
					t.Fatal(err)
				}
				var s fsm.Snapshot
				if err := json.Unmarshal(b, &s); err != nil {
					t.Fatal(err)
				}
				if split, err = fsm.Resume(cfg, s); err != nil {
					t.Fatalf("cut %d: resume %s: %v", cut, b, err)
				}
			}
			want = append(want, step(whole, ob))
			got = append(got, step(split, ob))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cut %d: resumed wait diverged:\n got %+v\nwant %+v", cut, got, want)
		}
		if last := want[len(want)-1]; ending(last) != "no_response_file" || last.State != handoff.Failed {
			t.Fatalf("timeline should end failed, got %+v", last)
		}
	}
}

func TestResumeRefusesABadSnapshot(t *testing.T) {
	good := fsm.Snapshot{State: handoff.IdleGrace, DispatchedAt: t0, IdleSince: at(10)}
	if _, err := fsm.Resume(handoff.DefaultConfig(), good); err != nil {
		t.Fatalf("good snapshot refused: %v", err)
	}
	bad := map[string]fsm.Snapshot{
		"unknown state":            {State: "Sleeping", DispatchedAt: t0},
		"no dispatch time":         {State: handoff.Working},
		"grace without idle_since": {State: handoff.StartupTimeout, DispatchedAt: t0},
		"done without end event":   {State: handoff.Done, DispatchedAt: t0},
		"failed by a non-failure":  {State: handoff.Failed, DispatchedAt: t0, End: handoff.EventFileReady},
		"running with end event":   {State: handoff.Working, DispatchedAt: t0, End: handoff.EventTimeout},
		"negative polls":           {State: handoff.Working, DispatchedAt: t0, Polls: -1},
	}
	for name, s := range bad {
		if _, err := fsm.Resume(handoff.DefaultConfig(), s); !errors.Is(err, fsm.ErrBadSnapshot) {
			t.Errorf("%s: want ErrBadSnapshot, got %v", name, err)
		}
	}
	if _, err := fsm.Resume(handoff.Config{Poll: -time.Second}, good); !errors.Is(err, handoff.ErrInvalidConfig) {
		t.Errorf("negative poll: want ErrInvalidConfig, got %v", err)
	}
	if _, err := fsm.Resume(handoff.Config{}, good); err != nil {
		t.Errorf("the zero config is the defaults, want it accepted: %v", err)
	}
}

func TestCoreRecordsEveryTransitionWithItsObservation(t *testing.T) {
	cfg := handoff.DefaultConfig()
	cfg.ResponseTimeout = 20 * time.Second
	c := fsm.NewCore(cfg, t0)
	// Seen working for the first time exactly at the response deadline:
	// two transitions from one observation.
	o := c.Step(obs(20, "thinking", fsm.FileAbsent))
	want := []fsm.Entry{
		{At: at(20), From: handoff.AwaitingStart, To: handoff.Working, Event: handoff.EventActive, Status: "thinking"},
		{At: at(20), From: handoff.Working, To: handoff.Failed, Event: handoff.EventTimeout, Status: "thinking"},
	}
	if !reflect.DeepEqual(o.Transitions, want) || ending(o) != "timeout" {
		t.Errorf("got %+v %q, want %+v", o.Transitions, ending(o), want)
	}
	if s := c.Snapshot(); s.LastStatus != "thinking" || !s.LastAt.Equal(at(20)) || s.Polls != 1 || s.End != handoff.EventTimeout {
		t.Errorf("snapshot %+v", s)
	}
}

func TestFileStateMattersOnlyWhenQuietAndReady(t *testing.T) {
	for _, f := range []fsm.FileState{fsm.FileAbsent, fsm.FileBlank} {
		c := fsm.NewCore(handoff.DefaultConfig(), t0)
		if o := step(c, obs(0, handoff.StatusIdle, f)); o.Outcome != nil || o.State != handoff.AwaitingStart {
			t.Errorf("quiet with file %s: %+v", f, o)
		}
	}
	// A file while the agent works is not touched: it may still be writing.
	c := fsm.NewCore(handoff.DefaultConfig(), t0)
	if o := c.Step(obs(0, handoff.StatusProcessing, fsm.FilePresent)); o.Action != "" || o.Outcome != nil {
		t.Errorf("a file while processing must not be taken: %+v", o)
	}
	// Quiet with a file: the core asks for it before deciding anything.
	c = fsm.NewCore(handoff.DefaultConfig(), t0)
	if o := c.Step(obs(0, handoff.StatusIdle, fsm.FilePresent)); o.Action != fsm.ConsumeFile || len(o.Transitions) != 0 {
		t.Errorf("quiet with a file: want ConsumeFile and no transition, got %+v", o)
	}
	if o := c.FileConsumed(fsm.FileReady); ending(o) != "file" {
		t.Errorf("consumed an answer: want done from the file, got %+v", o)
	}
}

func TestFileConsumedWithoutAskIsIgnored(t *testing.T) {
	c := fsm.NewCore(handoff.DefaultConfig(), t0)
	if o := c.FileConsumed(fsm.FileReady); o.Outcome != nil || len(o.Transitions) != 0 || o.State != handoff.AwaitingStart {
		t.Errorf("FileConsumed with no ConsumeFile pending changed the core: %+v", o)
	}
}

// A live dispatch's path depends on timing; that it is a chain of the
// table's moves does not. CheckJournal is what tests of live dispatches
// assert, so it must refuse what the table does not allow.
func TestCheckJournalAcceptsTheTablesChainsOnly(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e := func(from, to handoff.State, ev handoff.Event) fsm.Entry {
		return fsm.Entry{At: at, From: from, To: to, Event: ev}
	}
	for name, tc := range map[string]struct {
		journal []fsm.Entry
		ok      bool
	}{
		"empty":             {nil, true},
		"through Working":   {[]fsm.Entry{e(handoff.AwaitingStart, handoff.Working, handoff.EventActive), e(handoff.Working, handoff.Done, handoff.EventFileReady)}, true},
		"error at once":     {[]fsm.Entry{e(handoff.AwaitingStart, handoff.Failed, handoff.EventTerminalError)}, true},
		"startup timeout":   {[]fsm.Entry{e(handoff.AwaitingStart, handoff.StartupTimeout, handoff.EventStartupTimeout), e(handoff.StartupTimeout, handoff.Failed, handoff.EventNoResponseFile)}, true},
		"not from start":    {[]fsm.Entry{e(handoff.Working, handoff.Done, handoff.EventFileReady)}, false},
		"a gap":             {[]fsm.Entry{e(handoff.AwaitingStart, handoff.Working, handoff.EventActive), e(handoff.IdleGrace, handoff.Failed, handoff.EventNoResponseFile)}, false},
		"not in the table":  {[]fsm.Entry{e(handoff.AwaitingStart, handoff.Failed, handoff.EventTimeout)}, false},
		"wrong destination": {[]fsm.Entry{e(handoff.AwaitingStart, handoff.Done, handoff.EventActive)}, false},
	} {
		if err := fsm.CheckJournal(tc.journal); (err == nil) != tc.ok {
			t.Errorf("%s: CheckJournal = %v, want ok %v", name, err, tc.ok)
		}
	}
}
