package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A finished Codex 0.169 turn: prompt ready, a reply after the user message.
const classifyCompleted = "› Say hello\n\n• Hello.\n\n  Worked for 2s • 05:13\n\n› Ask Codex to do anything\n\n  gpt-5.5 high · ~/w\n  ← for agents · ? for shortcuts\n"

func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"classify"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

type classifyOutput struct {
	Status  string         `json:"status"`
	Reason  string         `json:"reason"`
	Detail  string         `json:"detail"` // only on error screens: the line quoted
	Signals map[string]any `json:"signals"`
}

func decodeOne(t *testing.T, stdout string) classifyOutput {
	t.Helper()
	if !strings.HasSuffix(stdout, "\n") || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("want exactly one line of JSON, got %q", stdout)
	}
	var o classifyOutput
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("output is not the classification JSON: %v\n%s", err, stdout)
	}
	if o.Reason == "" || o.Signals == nil {
		t.Fatalf("reason and signals must be present: %s", stdout)
	}
	return o
}

func TestClassifyCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "screen.txt")
	if err := os.WriteFile(file, []byte(classifyCompleted), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"stdin by default", classifyCompleted, nil, "completed"},
		{"stdin as -", classifyCompleted, []string{"-"}, "completed"},
		{"file", "", []string{file}, "completed"},
		{"provider named", "", []string{"--provider", "codex", file}, "completed"},
		{"title spinner makes it processing", "", []string{"--title", "⠴ w", file}, "processing"},
		{"flags after the file", "", []string{file, "--title", "[ ! ] Action Required | w"}, "waiting_user_answer"},
		{"empty capture is an error status", "", nil, "error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tc.stdin, tc.args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if o := decodeOne(t, stdout); o.Status != tc.want {
				t.Errorf("status %q, want %q (%s)", o.Status, tc.want, stdout)
			}
		})
	}
}

func TestClassifyCommandSignalsAreReadable(t *testing.T) {
	code, stdout, _ := runCmd(t, "› write\n\n• Ran cat << 'EOF' > x\n  └ (no output)\n\n›\n100% context left\n")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	o := decodeOne(t, stdout)
	if o.Signals["reply"] != "tool" || o.Signals["last_user"] != "› write" {
		t.Errorf("signals %v: want reply=tool and the last user line", o.Signals)
	}
	if strings.Contains(stdout, `\u003c`) {
		t.Errorf("HTML escaping makes signals unreadable: %s", stdout)
	}
}

func TestClassifyCommandErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.txt")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr []string
	}{
		{"unknown provider", []string{"--provider", "clippy"}, exitUsage, []string{`unknown provider "clippy"`, "codex"}},
		{"unreadable file", []string{missing}, exitFailure, []string{"cannot read the capture from " + missing, "no such file"}},
		{"two files", []string{"a", "b"}, exitUsage, []string{"one capture at a time"}},
		{"bad flag", []string{"--nope"}, exitUsage, []string{"flag provided but not defined"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.wantCode, stderr)
			}
			if stdout != "" {
				t.Errorf("nothing may go to stdout on error, got %q", stdout)
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

func TestClassifyCommandHelp(t *testing.T) {
	code, _, stderr := runCmd(t, "", "-h")
	if code != exitOK || !strings.Contains(stderr, "--title") && !strings.Contains(stderr, "-title") {
		t.Errorf("exit %d, stderr %q: want help with the flags", code, stderr)
	}
}

// TestClassifyCommandOnRealCodexScreens runs the command over the screens
// captured from the real Codex 0.169 CLI, as a user would: file and title.
func TestClassifyCommandOnRealCodexScreens(t *testing.T) {
	dir := filepath.Join("..", "..", "codex", "testdata", "real-0.169")
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatalf("the real Codex screens must be in the repository: %v", err)
	}
	var cases []struct{ File, Title, Status string }
	if err := json.Unmarshal(b, &cases); err != nil || len(cases) == 0 {
		t.Fatalf("manifest.json: %v (%d screens)", err, len(cases))
	}
	for _, rc := range cases {
		t.Run(rc.File, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", "--title", rc.Title, filepath.Join(dir, rc.File))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			o := decodeOne(t, stdout)
			if (o.Detail != "") != (o.Status == "error") {
				t.Errorf("detail %q with status %q: an error screen, and only one, quotes its line", o.Detail, o.Status)
			}
			if o.Status != rc.Status {
				t.Errorf("status %q, want %q: %s", o.Status, rc.Status, stdout)
			}
		})
	}
}

// classify --provider auto on real screens of every provider: the title and
// the screen pick the provider that captured them, stderr says which, and
// the verdict is that provider's. A capture nobody recognises is an error
// listing the candidates.
func TestClassifyCommandProviderAuto(t *testing.T) {
	for _, tc := range []struct{ provider, file, title string }{
		{"gemini", "../../gemini/testdata/real-0.61.0/80x24/idle-fresh.txt", "◇  Ready (work)"},
		{"codex", "", ""},
	} {
		var capture []byte
		if tc.file == "" {
			capture = []byte(classifyCompleted)
		} else {
			var err error
			if capture, err = os.ReadFile(tc.file); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := runCmd(t, string(capture), "--provider", "auto", "--title", tc.title)
		if code != exitOK || !strings.Contains(stderr, "--provider auto: "+tc.provider+" recognises the capture") {
			t.Fatalf("%s: exit %d, stderr %q", tc.provider, code, stderr)
		}
		_, want, _ := runCmd(t, string(capture), "--provider", tc.provider, "--title", tc.title)
		if stdout != want {
			t.Errorf("%s: auto says %s, --provider %s says %s", tc.provider, stdout, tc.provider, want)
		}
	}
	code, stdout, stderr := runCmd(t, "$ ls\nREADME.md\n$ \n", "--provider", "auto")
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, "no provider recognises") || !strings.Contains(stderr, "codex") {
		t.Errorf("a shell: exit %d, stdout %q, stderr %q; want exit 1 naming the candidates", code, stdout, stderr)
	}
}
