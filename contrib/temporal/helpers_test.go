package handofftemporal_test

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	handofftemporal "github.com/handoff-fsm/handoff-fsm/contrib/temporal"
	"go.temporal.io/sdk/log"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
)

// needTmux skips on a dev machine without tmux; in CI a missing tmux fails.
func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but tmux is not installed")
		}
		t.Skip("skipping: tmux is not installed")
	}
}

var (
	binDir  string
	binErr  error
	binOnce sync.Once
	built   sync.Map // output name → error of its one build
)

// goBuild builds, once per test binary, the package pkg of the module in
// dir (relative to this package) into out, in a folder TestMain removes,
// and returns its path. It is built as scripts/release.sh builds a release
// (no cgo, -trimpath), as the core's tests build their commands: CI then
// compiles their dependencies once, not once for the release snapshot and
// again for the tests.
func goBuild(t *testing.T, out, dir, pkg string) string {
	t.Helper()
	binOnce.Do(func() { binDir, binErr = os.MkdirTemp("", "handoff-temporal-bin-") })
	if binErr != nil {
		t.Fatal(binErr)
	}
	path := filepath.Join(binDir, out)
	once, _ := built.LoadOrStore(out, sync.OnceValue(func() error {
		c := exec.Command("go", "build", "-trimpath", "-o", path, pkg)
		c.Dir, c.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
		if b, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		return nil
	}))
	if err := once.(func() error)(); err != nil {
		t.Fatal(err)
	}
	return path
}

// coreBinary is the core's handoff-fsm, whose hidden sim-agent runs in the
// panes (internal/simagent's command is not importable from this module).
func coreBinary(t *testing.T) string {
	return goBuild(t, "handoff-fsm", "../..", "./cmd/handoff-fsm")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// quietLog discards what the activities log.
func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// agents starts a private tmux server with one simulated agent per
// command (one window each) and returns its socket and each one's pane id.
func agents(t *testing.T, work string, cmds map[string]string) (string, map[string]string) {
	t.Helper()
	names, lines := make([]string, 0, len(cmds)), make([]string, 0, len(cmds))
	for n, c := range cmds {
		names, lines = append(names, n), append(lines, c)
	}
	priv, ids := simtest.StartCommands(t, "handoff-temporal", work, lines...)
	panes := map[string]string{}
	for i, n := range names {
		panes[n] = ids[i]
	}
	time.Sleep(time.Second) // the agents draw their prompts
	return priv.Socket, panes
}

// sim is the command line of a simulated agent working in work.
func sim(core, work string, flags ...string) string {
	return handoff.ShellQuote(core) + " sim-agent --startup 200ms --work 300ms --stream 100ms --cwd " + handoff.ShellQuote(work) + " " + strings.Join(flags, " ")
}

// quick is a config for simulated agents: fast polls, a shorter grace.
// The grace is 10 s, not 3: in a cold gate's run at load 20–40 a starved
// agent still showed its idle screen 3.6 s after the paste, and the
// dispatch ended no_response_file. A turn that writes its file ends
// without waiting for the grace.
func quick() handoff.Config {
	c := handoff.DefaultConfig()
	c.Poll, c.IdleGrace, c.ResponseTimeout = 200*time.Millisecond, 10*time.Second, 2*time.Minute
	return c
}

// loopAgents starts the five simulated agents: the analyst and the
// programmer echo what they are asked, the reviewers and the tester answer
// with a fixed text (extra flags per role, e.g. --work-until).
func loopAgents(t *testing.T, analystReview string, extra map[string]string) (socket string, panes map[string]string, work string) {
	t.Helper()
	needTmux(t)
	core := coreBinary(t)
	work = t.TempDir()
	cmds := map[string]string{
		"analyst":           sim(core, work, "--echo", extra["analyst"]),
		"analyst_review":    sim(core, work, "--answer", handoff.ShellQuote(analystReview), extra["analyst_review"]),
		"programmer":        sim(core, work, "--echo", extra["programmer"]),
		"programmer_review": sim(core, work, "--answer APPROVED", extra["programmer_review"]),
		"tester":            sim(core, work, "--answer", handoff.ShellQuote("PASS: 12 tests"), extra["tester"]),
	}
	socket, panes = agents(t, work, cmds)
	return socket, panes, work
}

// loopInput routes the programmer and its reviewer to host-b and the
// others to host-a.
func loopInput(socket string, panes map[string]string, work string, rounds int) handofftemporal.LoopInput {
	in := handofftemporal.LoopInput{Task: "Add a --verbose flag", Rounds: rounds, Config: quick(),
		HeartbeatTimeout: 5 * time.Second, Panes: map[string]handofftemporal.Pane{}}
	for role, id := range panes {
		host := "host-a"
		if strings.HasPrefix(role, "programmer") {
			host = "host-b"
		}
		in.Panes[role] = handofftemporal.Pane{Address: host + "/" + id, Socket: socket, Provider: "codex", Workdir: work}
	}
	return in
}

// roles is the steps as "role@host", in order.
func roles(st handofftemporal.LoopStatus) string {
	var r []string
	for _, s := range st.Steps {
		r = append(r, s.Role+"@"+s.Host)
	}
	return strings.Join(r, " ")
}

// transcriptCount is how many times s shows in the whole history of the
// pane (its scrollback joined): how often the agent was given it.
func transcriptCount(t *testing.T, socket, pane, s string) int {
	t.Helper()
	hist, err := exec.Command("tmux", "-L", socket, "capture-pane", "-p", "-J", "-S", "-", "-t", pane).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(hist), s)
}

// sdkLog is the Temporal SDK's logger in the test environments: its
// warnings and errors on stderr (its mock service reports an unexpected
// call there before it exits), the rest discarded.
func sdkLog() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
