package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/diagram"
)

// runSub runs one subcommand in-process.
func runSub(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

const graceTrace = `{"config":{"poll":2,"idle_grace":30,"response_timeout":1800,"strict":true}}
{"at":0,"status":"processing"}
{"at":10,"status":"idle","last_output":"on screen"}
`

func TestReplayPrintsOneJSONObject(t *testing.T) {
	code, out, errOut := runSub(t, graceTrace, "replay", "-")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := `{"outcome":"failed","error":"no_response_file","content":"","at":40,"transitions":[` +
		`{"at":0,"from":"AwaitingStart","to":"Working","event":"active","status":"processing"},` +
		`{"at":10,"from":"Working","to":"IdleGrace","event":"quiet","status":"idle"},` +
		`{"at":40,"from":"IdleGrace","to":"Failed","event":"no_response_file","status":"idle"}]}` + "\n"
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// Flags override the config line; durations take Go durations and seconds;
// flags may follow the file.
func TestReplayFlagsOverrideTheTraceConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(graceTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", "--strict=false", "--idle-grace", "1.5s", "--poll", "500ms", path},
		{"replay", path, "--strict=false", "--idle-grace=1.5", "--poll", "0.5"},
	} {
		code, out, errOut := runSub(t, "", args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var rep struct {
			Outcome, Source, Content string
			At                       float64
			Error                    *string
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Outcome != "done" || rep.Source != "fallback" || rep.Content != "on screen" || rep.At != 11.5 || rep.Error != nil {
			t.Errorf("%v: %s", args, out)
		}
	}
	code, out, _ := runSub(t, "", "replay", "--timeout", "20", path)
	if code != exitOK || !strings.Contains(out, `"at":20,`) || !strings.Contains(out, `"error":"no_response_file"`) {
		t.Errorf("--timeout 20: exit %d %s", code, out)
	}
	if strings.Contains(out, `"source"`) {
		t.Errorf("a failed outcome carries a source: %s", out)
	}
}

func TestReplayMalformedTraceNamesTheLine(t *testing.T) {
	for name, tc := range map[string]struct{ trace, says string }{
		"bad JSON":     {"{\"at\":0}\n{\"at\":1,\n", "line 2: not valid JSON"},
		"unknown key":  {"{\"at\":0,\"colour\":\"red\"}\n", `line 1: unknown key "colour"`},
		"backwards":    {"{\"at\":3}\n\n{\"at\":2}\n", "line 3: \"at\" goes backwards"},
		"negative at":  {"{\"at\":-0.5,\"status\":\"idle\"}\n", "line 1: \"at\""},
		"bad config":   {"{\"config\":{\"poll\":0}}\n", "poll interval must be positive"},
		"empty status": {"{\"at\":1,\"status\":\"\"}\n", `line 1: "status" is empty`},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runSub(t, tc.trace, "replay", "-")
			if code == exitOK || out != "" {
				t.Fatalf("exit %d, stdout %q: want a failure and nothing on stdout", code, out)
			}
			if !strings.Contains(errOut, tc.says) || !strings.Contains(errOut, "stdin") {
				t.Errorf("stderr %q does not say %q", errOut, tc.says)
			}
		})
	}
}

// Any status other than the known ones counts as the agent working.
func TestReplayUnknownStatusIsAllowed(t *testing.T) {
	code, out, errOut := runSub(t, `{"at":0,"status":"compacting"}
{"at":4,"file":"ok"}
{"at":6,"status":"completed"}`, "replay", "-")
	if code != exitOK || !strings.HasPrefix(out, `{"outcome":"done","source":"file","content":"ok","at":6,`) ||
		!strings.Contains(out, `"event":"active","status":"compacting"`) {
		t.Errorf("exit %d %s %s", code, out, errOut)
	}
}

func TestReplayUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"replay"},
		{"replay", "a.jsonl", "b.jsonl"},
		{"replay", "--poll", "soon", "-"},
		{"replay", "--strict=maybe", "-"},
	} {
		if code, _, errOut := runSub(t, "", args...); code != exitUsage || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, errOut)
		}
	}
	if code, _, errOut := runSub(t, "", "replay", filepath.Join(t.TempDir(), "missing.jsonl")); code != exitFailure || !strings.Contains(errOut, "missing.jsonl") {
		t.Errorf("missing file: exit %d %q", code, errOut)
	}
	code, _, errOut := runSub(t, "", "replay", "-h")
	if code != exitOK || !strings.Contains(errOut, `"last_output"`) || !strings.Contains(errOut, "idle") {
		t.Errorf("-h: exit %d, help %q", code, errOut)
	}
}

func TestReplayVerboseLogsTheStartupWarning(t *testing.T) {
	code, out, errOut := runSub(t, `{"at":0,"status":"idle"}`, "replay", "-v", "-")
	if code != exitOK || out == "" || !strings.Contains(errOut, "level=WARN") || !strings.Contains(errOut, "startup guard released") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestDiagramCommandPrintsTheDocsFile(t *testing.T) {
	code, out, errOut := runSub(t, "", "diagram")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != diagram.Mermaid(handoff.Transitions()) {
		t.Errorf("diagram output is not the Mermaid page")
	}
	docs, err := os.ReadFile("../../docs/state-diagram.md")
	if err != nil || string(docs) != out {
		t.Errorf("docs/state-diagram.md differs from `handoff-fsm diagram` (%v); regenerate: %s", err, diagram.RegenerateCommand)
	}
	code, out, _ = runSub(t, "", "diagram", "--format", "dot")
	if code != exitOK || !strings.Contains(out, "digraph dispatch {") {
		t.Errorf("dot: exit %d %s", code, out)
	}
	if code, _, errOut := runSub(t, "", "diagram", "--format", "png"); code != exitUsage || !strings.Contains(errOut, "png") {
		t.Errorf("bad format: exit %d %q", code, errOut)
	}
}
