package realcli

import (
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var testPin = Pin{Name: "codex", Version: "0.1.2"}

func TestBinaryFromEnvMustExist(t *testing.T) {
	if testPin.BinEnv() != "HANDOFF_CODEX_BIN" {
		t.Fatalf("the variable is %s", testPin.BinEnv())
	}
	t.Setenv(testPin.BinEnv(), filepath.Join(t.TempDir(), "no-cli-here"))
	if _, err := testPin.Binary(); !errors.Is(err, ErrNoBinary) {
		t.Fatalf("got %v, want ErrNoBinary", err)
	}
}

func TestBinaryDefaultsToTheInstallScriptsLink(t *testing.T) {
	t.Setenv(testPin.BinEnv(), "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, err := testPin.Binary()
	if !errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), "install-cli.sh codex") {
		t.Fatalf("got %v, want ErrNoBinary telling how to install", err)
	}
	if want := filepath.Join("handoff-fsm", "codex-0.1.2"); !strings.HasSuffix(testPin.CacheDir(), want) {
		t.Fatalf("cache dir %s does not end in %s", testPin.CacheDir(), want)
	}
}

func TestStripANSIKeepsNeighbouringText(t *testing.T) {
	in := "a\x1b[31mred\x1b[0m\nb\x1b]0;title\x07c\x1b]2;t\x1b\\d"
	if got := StripANSI(in); got != "ared\nbcd" {
		t.Fatalf("got %q", got)
	}
}

// A CLI's environment is its own and the terminal it is told: the
// descriptor's default terminal for the zero one, the one asked for
// otherwise.
func TestEnvCarriesTheDescriptorsDefaultTerminal(t *testing.T) {
	cli := CLI{Terminal: Terminal{Term: "xterm-256color"}}
	env := cli.Env(Common{Home: "/h"}, "KEY=v")
	if !slicesHave(env, "HOME=/h", "LANG=C.UTF-8", "KEY=v", "TERM=xterm-256color") || slicesHave(env, "COLORTERM=truecolor") {
		t.Fatalf("zero terminal: %q", env)
	}
	env = cli.Env(Common{Home: "/h", Terminal: Terminal{Term: "tmux-256color", NoColor: true}})
	if !slicesHave(env, "TERM=tmux-256color", "NO_COLOR=1") || slicesHave(env, "TERM=xterm-256color") {
		t.Fatalf("tmux terminal: %q", env)
	}
	if env := (CLI{}).Env(Common{}); !slicesHave(env, "TERM=xterm-256color", "COLORTERM=truecolor") {
		t.Fatalf("no default terminal: %q, want DefaultTerminal", env)
	}
}

// slicesHave reports whether env holds every one of want.
func slicesHave(env []string, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(env, w) {
			return false
		}
	}
	return true
}

// End ends a process that takes SIGTERM at once, and one that ignores it
// with SIGKILL once the grace is over.
func TestEndTermsThenKills(t *testing.T) {
	for _, c := range []struct{ name, script string }{
		{"takes SIGTERM", "exec sleep 60"},
		{"ignores SIGTERM", "trap '' TERM; while :; do :; done"},
	} {
		cmd := exec.Command("sh", "-c", c.script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		time.Sleep(100 * time.Millisecond) // the trap set
		if err := End(cmd.Process.Pid, 300*time.Millisecond); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("%s: still running after End", c.name)
		}
	}
}
