package realcli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// A CLI writes its temporary files (Gemini CLI's error reports) into a
// folder of its home, which whoever removes the home removes: nothing of
// a session is left in the machine's temporary folder.
func TestSessionTemporaryFilesStayInTheHome(t *testing.T) {
	testkit.RequireTmux(t)
	dir := t.TempDir()
	name := "realcli-probe-" + filepath.Base(dir) // unique: the test's own folder's name
	script := filepath.Join(dir, "cli")
	body := "#!/bin/sh\necho left > \"${TMPDIR:-/tmp}/" + name + "\"\necho ready\nexec sleep 60\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	cli := CLI{Pin: Pin{Name: "probe"}, Ready: func(text, _ string) bool { return strings.Contains(text, "ready") }}
	c := Common{Bin: script, Workdir: dir, Home: home, BaseURL: "http://127.0.0.1:1"}
	s, err := Start(context.Background(), cli, Launch{Common: c, Env: cli.Env(c)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(filepath.Join(TempDir(home), name)); err != nil {
		t.Errorf("the CLI's temporary file is not in its home's temporary folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), name)); err == nil {
		os.Remove(filepath.Join(os.TempDir(), name))
		t.Errorf("the CLI wrote its temporary file into %s", os.TempDir())
	}
}

// A CLI that runs a command the way droid does, double-forked into a
// session of its own in the work folder, leaves it running when the pane
// ends; Close ends it too.
func TestSessionCloseEndsWhatTheCLIDetached(t *testing.T) {
	testkit.RequireTmux(t)
	dir := t.TempDir()
	work, pidFile := filepath.Join(dir, "work"), filepath.Join(dir, "detached.pid")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "cli")
	body := "#!/bin/sh\nsh -c 'setsid sleep 61 & echo $! > \"$0\"' " + pidFile + "\necho ready\nexec sleep 60\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	cli := CLI{Pin: Pin{Name: "probe"}, Ready: func(text, _ string) bool { return strings.Contains(text, "ready") }}
	c := Common{Bin: script, Workdir: work, Home: filepath.Join(dir, "home"), BaseURL: "http://127.0.0.1:1"}
	s, err := Start(context.Background(), cli, Launch{Common: c, Env: cli.Env(c)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	pid, aerr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || aerr != nil {
		s.Close()
		t.Fatalf("the detached command's pid: %v %v", err, aerr)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if !Alive(pid) {
		t.Fatalf("the detached command %d is not running before Close", pid)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if Alive(pid) {
		t.Errorf("the detached command %d still runs after Close", pid)
	}
}
