package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// explain gives a person's reading of every real screen the providers were
// proven on (the screens their classifiers are checked against): the
// status the screen truly means, the provider's reason in words, what the
// engine does with that status, and which of its signals were seen.
func TestExplainReadsEveryRealScreen(t *testing.T) {
	n := 0
	words := regexp.MustCompile(`[a-zA-Z]{3,}.*\s.*[a-zA-Z]{3,}`)
	for _, name := range provider.Names() {
		reals, _ := filepath.Glob(filepath.Join("..", "..", name, "testdata", "real-*"))
		for _, real := range reals {
			for _, dir := range conformance.Dirs(real) {
				for _, s := range conformance.LoadScreens(t, dir) {
					file := filepath.Join(dir, s.File)
					code, out, errOut := runSub(t, "", "explain", "--provider", name, "--title", s.Title, file)
					if code != exitOK {
						t.Errorf("%s: exit %d: %s", file, code, errOut)
						continue
					}
					n++
					lines := map[string]string{}
					for _, l := range strings.Split(out, "\n") {
						if k, v, ok := strings.Cut(l, " "); ok {
							lines[k] = strings.TrimSpace(v)
						}
					}
					switch {
					case lines["status"] != string(s.Status):
						t.Errorf("%s: explain says status %q, the screen means %s:\n%s", file, lines["status"], s.Status, out)
					case !words.MatchString(lines["why"]) || strings.ContainsAny(lines["why"], "{}"):
						t.Errorf("%s: the reason is not a person's reading: %q", file, lines["why"])
					case lines["meaning"] == "":
						t.Errorf("%s: no meaning for the engine:\n%s", file, out)
					case !strings.Contains(out, "rules saw (signals):"):
						t.Errorf("%s: no signal seen:\n%s", file, out)
					}
					if s.Detail != "" && !strings.Contains(lines["said"], s.Detail) {
						t.Errorf("%s: the error the screen shows (%q) is not quoted:\n%s", file, s.Detail, out)
					}
				}
			}
		}
	}
	if n < 50 {
		t.Fatalf("explained %d real screens; the providers' testdata holds more", n)
	}
}

// explain on a finished dispatch of a service's state folder: each
// transition with its evidence; and a recorded trace: each transition with
// the recorded screen's reason behind it.
func TestExplainADispatchAndARecord(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runSub(t, "", "explain", "--dispatch", "20260101-000000-abc", "--state-dir", dir)
	if code != exitUsage || !strings.Contains(errOut, "no such dispatch") {
		t.Errorf("an unknown dispatch: exit %d, %q", code, errOut)
	}
	if _, err := serve.Load(dir, "../x"); err == nil {
		t.Error("a path as a dispatch id is accepted")
	}

	rec := filepath.Join(dir, "run.trace")
	trace := `{"config":{"poll":1,"idle_grace":5,"response_timeout":60,"strict":true}}
{"at":0,"status":"idle","reason":"the previous turn's answer and a ready prompt"}
{"at":1,"status":"processing","reason":"the spinner runs in the title"}
{"at":3,"status":"completed","reason":"the prompt is ready and a reply follows the last user message","file":"the answer\n"}
`
	if err := os.WriteFile(rec, []byte(trace), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runSub(t, "", "explain", "--record", rec)
	if code != exitOK {
		t.Fatalf("explain --record: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		": done (file) at 3.00 s",
		"AwaitingStart → Working on active (status processing)",
		"decided by the screen\n             screen: the spinner runs in the title",
		"Working → Done on file_ready (status completed)",
		"decided by the response file\n             screen: the prompt is ready and a reply follows the last user message\n             file: ready",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --record lacks %q:\n%s", want, out)
		}
	}
}
