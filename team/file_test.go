package team

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAMinimalFileGetsTheDefaults(t *testing.T) {
	tm, err := Parse([]byte("[agents.analyst]\n[agents.tester]\nprovider = \"claude\"\n"), "/proj")
	if err != nil {
		t.Fatal(err)
	}
	if tm.Socket != DefaultSocket || tm.Session != DefaultSession || tm.Workdir != "/proj" || tm.ReadyTimeout != DefaultReadyTimeout ||
		tm.Width != DefaultWidth || tm.Height != DefaultHeight {
		t.Errorf("defaults: %+v", tm)
	}
	if got := strings.Join(tm.Roles(), " "); got != "analyst tester" {
		t.Errorf("roles %q, want the file's order", got)
	}
	a, _ := tm.Agent("analyst")
	if a.Provider != "codex" || a.Command != "codex" || a.Workdir != "/proj" {
		t.Errorf("analyst %+v", a)
	}
	b, _ := tm.Agent("tester")
	if b.Provider != "claude" || b.Command != "claude" {
		t.Errorf("tester %+v", b)
	}
}

func TestAFullFile(t *testing.T) {
	tm, err := Parse([]byte(`
socket = "my-team"
session = "work"
workdir = "proj"
ready_timeout = "90s"
width = 120
height = 40

[agents.programmer]
provider = "gemini"
command = "/opt/bin/gemini"
args = ["--model", "x"]
env = { GEMINI_API_KEY = "k", HOME = "/h" }
workdir = "/elsewhere"

[agents.reviewer_2]
demo_answers = ["CHANGES REQUESTED: more", "APPROVED"]
demo_args = ["--work", "5s"]
`), "/base")
	if err != nil {
		t.Fatal(err)
	}
	if tm.Socket != "my-team" || tm.Session != "work" || tm.Workdir != "/base/proj" || tm.ReadyTimeout != 90*time.Second || tm.Width != 120 || tm.Height != 40 {
		t.Errorf("team %+v", tm)
	}
	p, _ := tm.Agent("programmer")
	if p.Command != "/opt/bin/gemini" || strings.Join(p.Args, " ") != "--model x" || p.Env["HOME"] != "/h" || p.Workdir != "/elsewhere" {
		t.Errorf("programmer %+v", p)
	}
	r, _ := tm.Agent("reviewer_2")
	if r.Workdir != "/base/proj" || len(r.DemoAnswers) != 2 || strings.Join(r.DemoArgs, " ") != "--work 5s" {
		t.Errorf("reviewer_2 %+v", r)
	}
}

// Every mistake is an error that names the key.
func TestMistakesAreNamed(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"unknown top key", "sockit = \"x\"\n[agents.analyst]\n", "unknown key sockit"},
		{"unknown agent key", "[agents.analyst]\nprovidr = \"codex\"\n", "unknown key agents.analyst.providr"},
		{"bad type", "width = \"wide\"\n[agents.analyst]\n", "width"},
		{"bad args type", "[agents.analyst]\nargs = \"--yolo\"\n", "args"},
		{"bad provider", "[agents.analyst]\nprovider = \"cursor\"\n", `agents.analyst.provider: unknown provider "cursor"`},
		{"bad duration", "ready_timeout = \"soon\"\n[agents.analyst]\n", "ready_timeout"},
		{"zero duration", "ready_timeout = \"0s\"\n[agents.analyst]\n", "ready_timeout"},
		{"bad width", "width = 5\n[agents.analyst]\n", "width: 5"},
		{"bad socket", "socket = \"a b\"\n[agents.analyst]\n", "socket"},
		{"bad session", "session = \"a:b\"\n[agents.analyst]\n", "session"},
		{"typo role", "[agents.anaylst]\n", "agents.anaylst"},
		{"command with args", "[agents.analyst]\ncommand = \"codex --yolo\"\n", "agents.analyst.command"},
		{"bad env name", "[agents.analyst]\nenv = { \"A-B\" = \"x\" }\n", "agents.analyst.env"},
		{"no agents", "socket = \"x\"\n", "agents: no agents"},
		{"not toml", "[agents.analyst\n", "invalid team file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.file), "/p")
			if err == nil {
				t.Fatalf("accepted:\n%s", c.file)
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want ErrInvalid naming %q", err, c.want)
			}
		})
	}
}

func TestDefaultIsTheSpecsFiveRoles(t *testing.T) {
	tm, err := Default("/p")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tm.Roles(), " "); got != "analyst analyst_review programmer programmer_review tester" {
		t.Errorf("roles %s", got)
	}
}

func TestLoadTakesRelativeFoldersFromTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.toml")
	writeFile(t, path, "workdir = \"sub\"\n[agents.analyst]\nworkdir = \"a\"\n")
	tm, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tm.Agent("analyst")
	if tm.Workdir != filepath.Join(dir, "sub") || a.Workdir != filepath.Join(dir, "sub", "a") || tm.Path != path {
		t.Errorf("workdirs %s %s path %s", tm.Workdir, a.Workdir, tm.Path)
	}
	writeFile(t, path, "[agents.analyst]\nfoo = 1\n")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "agents.analyst.foo") {
		t.Errorf("error %v, want the path and the key", err)
	}
}
