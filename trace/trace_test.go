package trace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/vclock"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// Golden replays: each testdata/NAME.jsonl replays to exactly
// testdata/NAME.golden.json (written by hand from the spec's rules).
func TestReplayGoldenTraces(t *testing.T) {
	traces, _ := filepath.Glob("testdata/*.jsonl")
	if len(traces) < 6 {
		t.Fatalf("found %d golden traces, want at least 6", len(traces))
	}
	for _, path := range traces {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			tr, err := trace.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rep := replayed(t, tr)
			got, _ := json.Marshal(rep)
			want, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".golden.json")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != strings.TrimSpace(string(want)) {
				t.Errorf("replay of %s:\n got %s\nwant %s", path, got, want)
			}
		})
	}
}

func TestReplayArchivesInItsWorkdir(t *testing.T) {
	work := t.TempDir()
	tr, err := trace.Read(strings.NewReader(`{"at":0,"status":"processing"}
{"at":1,"file":"  "}
{"at":2,"status":"idle"}
{"at":3,"file":"answer"}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := trace.Replay(context.Background(), tr, trace.ReplayOptions{Config: handoff.DefaultConfig(), Workdir: work, Role: "tester"})
	if err != nil || rep.Content != "answer" || rep.At != 4 {
		t.Fatalf("%+v %v", rep, err)
	}
	got, _ := filepath.Glob(filepath.Join(work, ".tmp", "run-*", "*"))
	if len(got) != 2 || filepath.Base(got[0]) != "001-tester.empty.md" || filepath.Base(got[1]) != "002-tester.md" {
		t.Errorf("archive holds %v", got)
	}
}

func TestReadParsesEveryField(t *testing.T) {
	tr, err := trace.Read(strings.NewReader(`{"config":{"poll":"500ms","idle_grace":1.5,"response_timeout":"90","strict":false}}

{"at":0}
{"at":"1.5s","status":"thinking","file":"","last_output":"x"}
{"at":1.5,"status":"idle"}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := tr.Config.Wait
	if c.Poll != 500*time.Millisecond || c.IdleGrace != 1500*time.Millisecond || c.ResponseTimeout != 90*time.Second || !c.Fallback {
		t.Errorf("config %+v", c)
	}
	if len(tr.Lines) != 3 {
		t.Fatalf("lines %+v", tr.Lines)
	}
	l := tr.Lines[1]
	if l.At != 1500*time.Millisecond || *l.Status != "thinking" || *l.File != "" || *l.LastOutput != "x" {
		t.Errorf("line %+v", l)
	}
	if tr.Lines[0].Status != nil || tr.Lines[0].File != nil || tr.Lines[2].File != nil {
		t.Errorf("absent fields came back set: %+v", tr.Lines)
	}
}

func TestConfigLeavesUnsetFieldsAtTheirDefaults(t *testing.T) {
	tr, err := trace.Read(strings.NewReader(`{"config":{"idle_grace":5}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := handoff.DefaultConfig()
	want.IdleGrace = 5 * time.Second
	if got := tr.WaitConfig(); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestReadRejectsMalformedTracesNamingTheLine(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		line int
		says string
	}{
		"bad JSON":              {`{"at":0,"status":"idle"}` + "\n" + `{"at":1,"status":}`, 2, "not valid JSON"},
		"not an object":         {`[1,2]`, 1, "want"},
		"two objects on a line": {`{"at":0} {"at":1}`, 1, "one object per line"},
		"unknown key":           {`{"at":0,"stauts":"idle"}`, 1, `unknown key "stauts"`},
		"unknown config key":    {`{"config":{"pol":2}}`, 1, `"pol": unknown key`},
		"missing at":            {`{"status":"idle"}`, 1, `missing "at"`},
		"negative at":           {"\n\n" + `{"at":-1,"status":"idle"}`, 3, "non-negative"},
		"at going backwards":    {`{"at":5,"status":"idle"}` + "\n" + `{"at":4.9,"status":"processing"}`, 2, "goes backwards"},
		"empty status":          {`{"at":0,"status":" "}`, 1, `"status" is empty`},
		"status not a string":   {`{"at":0,"status":3}`, 1, `"status"`},
		"config not first":      {`{"at":0,"status":"idle"}` + "\n" + `{"config":{"poll":1}}`, 2, "only allowed on the first line"},
		"config with a moment":  {`{"config":{"poll":1},"at":0}`, 1, `only "config"`},
		"bad duration string":   {`{"config":{"poll":"soon"}}`, 1, "Go duration"},
		"negative config":       {`{"config":{"idle_grace":-3}}`, 1, "non-negative"},
		"bad receipt":           {`{"config":{"receipt":"x'; rm -rf /"}}`, 1, `"receipt"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := trace.Read(strings.NewReader(tc.text))
			var le *trace.LineError
			if !errors.As(err, &le) || !errors.Is(err, trace.ErrMalformed) {
				t.Fatalf("want a LineError matching ErrMalformed, got %v", err)
			}
			if le.Line != tc.line || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %q (line %d), want line %d saying %q", err, le.Line, tc.line, tc.says)
			}
		})
	}
}

// What the Encoder writes, Read reads back unchanged (a recording replays).
func TestWriteThenReadRoundTrips(t *testing.T) {
	st := func(s handoff.Status) *handoff.Status { return &s }
	str := func(s string) *string { return &s }
	wait := handoff.DefaultConfig()
	wait.Poll, wait.IdleGrace, wait.ResponseTimeout, wait.Fallback = 250*time.Millisecond, 4*time.Second, time.Hour, true
	cfg := trace.Config{Wait: wait, Receipt: "OURSRECEIPTAAAAAAAAA"}
	in := trace.Trace{Config: &cfg, Lines: []trace.Line{
		{At: 0, Status: st("idle")},
		{At: 1234567 * time.Microsecond, Status: st("processing"), LastOutput: str("…working \"hard\"\n")},
		{At: 1234567 * time.Microsecond, File: str("")},
		{At: 90 * time.Second, File: str("<answer> & more"), Status: st("completed")},
	}}
	var b bytes.Buffer
	if err := trace.Write(&b, in); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `{"config":{"poll":0.25,"idle_grace":4,"response_timeout":3600,"strict":false,"max_response_bytes":8388608,`+
		`"max_poll_failures":3,"reminders":0,"auto_answer":"","answer_cooldown":5,"max_answers":3,"busy_wait":60,`+
		`"queue_when_busy":false,"start_on_output":false,"receipt":"OURSRECEIPTAAAAAAAAA"}}`+"\n") {
		t.Errorf("config line written as:\n%s", b.String())
	}
	out, err := trace.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip changed the trace:\n got %+v\nwant %+v", out, in)
	}
}

func TestEncoderRefusesWhatReadWouldRefuse(t *testing.T) {
	var b bytes.Buffer
	e := trace.NewEncoder(&b)
	if err := e.Line(trace.Line{At: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := e.Line(trace.Line{At: 4 * time.Second}); !errors.Is(err, trace.ErrOrder) {
		t.Errorf("backwards line: want ErrOrder, got %v", err)
	}
	if err := e.Config(trace.Config{}); !errors.Is(err, trace.ErrOrder) {
		t.Errorf("late config: want ErrOrder, got %v", err)
	}
	if err := trace.NewEncoder(&b).Line(trace.Line{At: -time.Second}); !errors.Is(err, trace.ErrOrder) {
		t.Errorf("negative at: want ErrOrder, got %v", err)
	}
	empty := handoff.Status("")
	if err := trace.NewEncoder(&b).Line(trace.Line{Status: &empty}); err == nil {
		t.Error("empty status accepted")
	}
}

// Before any status line the scripted terminal shows the stale idle
// prompt; a file moment writes the file when the clock reaches it.
func TestScriptPlaysMomentsAsTimePasses(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.md")
	clk := vclock.New(time.Unix(0, 0))
	text, busy := "hello", handoff.Status("processing")
	s := trace.NewScript([]trace.Line{{At: 2 * time.Second, Status: &busy}, {At: 3 * time.Second, File: &text}}, clk, p)
	if st, err := s.Status(context.Background()); err != nil || st != handoff.StatusIdle {
		t.Fatalf("at 0: %q %v, want idle", st, err)
	}
	clk.Sleep(2 * time.Second)
	if st, _ := s.Status(context.Background()); st != busy {
		t.Errorf("at 2 s: %q", st)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file written early")
	}
	clk.Sleep(time.Second)
	if _, err := s.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != text {
		t.Errorf("file at 3 s: %q %v", b, err)
	}
	if out, err := s.LastOutput(context.Background()); out != "" || err != nil {
		t.Errorf("last output without a last_output moment: %q %v", out, err)
	}
}

func TestScriptReportsItsOwnWriteFailure(t *testing.T) {
	text := "x"
	tr := trace.Trace{Lines: []trace.Line{{At: 0, File: &text}}}
	// The response folder is a file: the scripted agent cannot write.
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, ".tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".tmp", "agent-responses"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := trace.Replay(context.Background(), tr, trace.ReplayOptions{Config: handoff.DefaultConfig(), Workdir: work}); err == nil {
		t.Fatal("replay with an unwritable response folder succeeded")
	}
}

func TestReplayRefusesAnEndlessConfig(t *testing.T) {
	cfg := handoff.DefaultConfig()
	cfg.Poll = time.Nanosecond
	_, err := trace.Replay(context.Background(), trace.Trace{}, trace.ReplayOptions{Config: cfg})
	if err == nil || !strings.Contains(err.Error(), "raise the poll interval") {
		t.Fatalf("want a clear refusal, got %v", err)
	}
	if _, err := trace.Replay(context.Background(), trace.Trace{}, trace.ReplayOptions{Config: handoff.Config{Poll: -time.Second}}); !errors.Is(err, handoff.ErrInvalidConfig) {
		t.Errorf("negative poll: want ErrInvalidConfig, got %v", err)
	}
	// The zero Config is the defaults: an empty trace fails for want of a
	// file after twice the default grace.
	if rep, err := trace.Replay(context.Background(), trace.Trace{}, trace.ReplayOptions{}); err != nil || rep.Error != "no_response_file" || rep.At != 60 {
		t.Errorf("zero config: want the defaults (no file after 60 s), got %+v %v", rep, err)
	}
}

// Whatever Read accepts, Write writes back so that Read gets the same trace;
// whatever it refuses is a LineError. It never panics.
func FuzzReadWriteRoundTrip(f *testing.F) {
	for _, seed := range []string{
		graceLike,
		`{"config":{"poll":"500ms","strict":false}}` + "\n" + `{"at":"1.5s","file":""}`,
		`{"at":0.000000001,"status":"x\u0000y","last_output":"\u2028"}`,
		`{"at":1}{"at":2}`,
		`{"config":null}`,
		"\n\n\n",
		`{"at":1e20}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := trace.Read(strings.NewReader(text))
		if err != nil {
			if !errors.Is(err, trace.ErrMalformed) {
				t.Fatalf("refusal %v is not ErrMalformed", err)
			}
			return
		}
		var b bytes.Buffer
		if err := trace.Write(&b, tr); err != nil {
			t.Fatalf("cannot write back an accepted trace: %v", err)
		}
		again, err := trace.Read(&b)
		if err != nil {
			t.Fatalf("cannot read back what was written: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(again, tr) {
			t.Fatalf("round trip changed the trace:\n%+v\n%+v", tr, again)
		}
	})
}

const graceLike = `{"config":{"poll":2,"idle_grace":30,"response_timeout":1800,"strict":true}}
{"at":0,"status":"processing"}
{"at":10,"status":"idle","last_output":"on screen"}`

// The check at the end's reading goes into a trace with the answer it
// goes with, and comes back as it was.
func TestSubmittedRoundTrips(t *testing.T) {
	sub := handoff.Submission{Messages: []handoff.Message{{Taken: handoff.TakenWhole, Quote: "Review"}, {Taken: handoff.TakenOther, Quote: "[Pasted Content 28 chars]"}}}
	var b bytes.Buffer
	if err := trace.NewEncoder(&b).Line(trace.Line{At: time.Second, Submitted: &sub}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"taken":"other"`) {
		t.Errorf("the line names the kinds: %s", b.String())
	}
	tr, err := trace.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Lines[0].Submitted; got == nil || got.Problem() != sub.Problem() || len(got.Messages) != 2 {
		t.Errorf("read back %+v, want %+v", got, sub)
	}
	if _, err := trace.Read(strings.NewReader(`{"at":1,"submitted":{"messages":[{"taken":"half"}]}}`)); !errors.Is(err, trace.ErrMalformed) {
		t.Errorf("an unknown kind: %v, want trace.ErrMalformed", err)
	}
}

// replayed is tr replayed with the config it recorded.
func replayed(t *testing.T, tr trace.Trace) trace.Report {
	t.Helper()
	rep, err := trace.Replay(context.Background(), tr, trace.ReplayOptions{Config: tr.WaitConfig()})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
