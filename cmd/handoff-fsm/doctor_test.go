package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/screen"
	"github.com/handoff-fsm/handoff-fsm/team"
)

func TestDoctorRefusesFlagsItCannotUse(t *testing.T) {
	for _, args := range [][]string{
		{"--command", "/bin/true"},       // whose CLI is it?
		{"--provider", "nosuch"},         // unknown provider
		{"--provider", "codex", "extra"}, // stray argument
	} {
		var out, errOut bytes.Buffer
		if code := runDoctor(context.Background(), args, nil, &out, &errOut); code != exitUsage {
			t.Errorf("doctor %v: exit %d, want %d (%s)", args, code, exitUsage, errOut.String())
		}
	}
}

func TestDoctorWithNoCLIOnPathFailsAndSaysSo(t *testing.T) {
	requireTmux(t)
	t.Setenv("PATH", t.TempDir()+":"+dirOf(t, "tmux"))
	var out, errOut bytes.Buffer
	if code := runDoctor(context.Background(), nil, nil, &out, &errOut); code != exitFailure {
		t.Fatalf("exit %d, want %d", code, exitFailure)
	}
	if !strings.Contains(errOut.String(), "no agent CLI found on PATH") {
		t.Errorf("stderr %q does not say no CLI was found", errOut.String())
	}
	for _, name := range provider.Names() {
		if !strings.Contains(out.String(), name) || !strings.Contains(out.String(), "not on PATH") {
			t.Errorf("the table does not list %s as not on PATH:\n%s", name, out.String())
		}
	}
}

func TestDoctorNamedCLIMissingIsWrong(t *testing.T) {
	requireTmux(t)
	t.Setenv("PATH", t.TempDir()+":"+dirOf(t, "tmux"))
	var out, errOut bytes.Buffer
	if code := runDoctor(context.Background(), []string{"--provider", "claude"}, nil, &out, &errOut); code != exitFailure {
		t.Fatalf("exit %d, want %d", code, exitFailure)
	}
	if !strings.Contains(out.String(), "WRONG") || !strings.Contains(out.String(), "--command PATH") {
		t.Errorf("the table does not say how to name the binary:\n%s", out.String())
	}
}

func TestDoctorTableShowsWrongCasesWithTheirScreen(t *testing.T) {
	rep := doctorReport{CLI: "claude", Path: "/opt/claude", Version: "2.1.299",
		Window: screen.Window{Oldest: "2.1.300", Newest: "2.1.332"}, Warning: screen.Window{Oldest: "2.1.300", Newest: "2.1.332"}.Warning("claude", "2.1.299"),
		Cases: []live.Result{
			{Case: live.CaseReady, OK: true, Reason: "ready 2s after start", Lines: []string{"❯"}},
			{Case: live.CaseAPIError, Reason: "got no response file, want a terminal error", Lines: []string{"● API Error: 500 Internal server error.", "✻ Sautéed for 5s"}},
		}}
	var b bytes.Buffer
	printDoctorReport(&b, rep)
	table := b.String()
	for _, want := range []string{"/opt/claude", "version 2.1.299", "tested window 2.1.300 … 2.1.332", "outside the tested window",
		"right  ready", "WRONG  api-error-is-a-terminal-error", "│ ● API Error: 500 Internal server error.", "│ ✻ Sautéed for 5s"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "│ ❯") {
		t.Errorf("a right case's screen is shown:\n%s", table)
	}
	if doctorExit([]doctorReport{rep}, &b) == exitOK {
		t.Error("a wrong case exits 0")
	}
	rep.Cases = rep.Cases[:1]
	if doctorExit([]doctorReport{rep, {CLI: "codex", Skipped: "not on PATH"}}, &b) != exitOK {
		t.Error("every case right (and a CLI not installed) does not exit 0")
	}
}

func TestEveryProviderHasADoctorDescriptorAndAWindowAroundItsPin(t *testing.T) {
	for _, p := range provider.All() {
		if _, ok := live.Find(p.Name); !ok {
			t.Errorf("provider %s has no conformance Subject (internal/conformance/live)", p.Name)
		}
		if !p.Window.Contains(p.Version) {
			t.Errorf("provider %s: its pin %s is outside its window %s", p.Name, p.Version, p.Window)
		}
	}
}

func TestWindowWarningOnlyOutside(t *testing.T) {
	p, _ := provider.Find("claude")
	if w := windowWarning("claude", p.Version+" (Claude Code)"); w != "" {
		t.Errorf("the pin is warned about: %s", w)
	}
	if w := windowWarning("claude", "1.0.0 (Claude Code)"); w == "" {
		t.Error("a release far outside the window is not warned about")
	}
	if w := windowWarning("claude", ""); w != "" {
		t.Errorf("an unknown version is warned about by up: %s", w)
	}
}

// dirOf is the folder of the program name on PATH (the test's PATH keeps
// only it).
func dirOf(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(path)
}

func TestStatusTeamWarnsAboutACLIOutsideItsWindow(t *testing.T) {
	dir := t.TempDir()
	script := func(name, version string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\necho '"+version+" (Claude Code)'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p, _ := provider.Find("claude")
	members := []team.Member{
		{Agent: team.Agent{Role: "old", Provider: "claude", Command: script("old-claude", "1.0.0")}, Pane: "%1"},
		{Agent: team.Agent{Role: "pinned", Provider: "claude", Command: script("pinned-claude", p.Version)}, Pane: "%2"},
		{Agent: team.Agent{Role: "stopped", Provider: "claude", Command: script("stopped-claude", "1.0.0")}},
	}
	got := teamWindowWarnings(context.Background(), members)
	if len(got) != 1 || !strings.Contains(got[0], "agent old:") || !strings.Contains(got[0], "1.0.0 is outside the tested window") {
		t.Errorf("warnings %q, want one for the old CLI only", got)
	}
}
