package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// testTeam parses a team file on a socket of its own and ends its tmux
// server, and every process in it, when the test ends.
func testTeam(t *testing.T, body string) *Team {
	t.Helper()
	testkit.RequireTmux(t)
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	socket := "handoff-team-test-" + hex.EncodeToString(rnd[:])
	tm, err := Parse([]byte("socket = \""+socket+"\"\n"+body), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := (&tmuxdriver.Private{Server: tm.Server(), SocketFile: tm.Server().SocketFile(ctx)}).Close(ctx); err != nil {
			t.Errorf("end the team's tmux server: %v", err)
		}
	})
	return tm
}

func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// An agent that cannot get ready is named with what its pane shows: a
// missing command, one that exits, one that shows something else. The
// others are left running; up again restarts the dead ones and leaves the
// running one alone; down ends them all.
//
// (The programmer lingers a second before it exits: tmux may drop what a
// process printed just before it died, and the test is about the report.)
func TestUpNamesAgentsThatCannotGetReady(t *testing.T) {
	tm := testTeam(t, `ready_timeout = "2s"
[agents.analyst]
command = "/nonexistent/codex-cli"
[agents.programmer]
command = "sh"
args = ["-c", "echo giving up now; sleep 1; exit 3"]
[agents.tester]
command = "sh"
args = ["-c", "echo this is not codex; exec sleep 300"]
`)
	ctx := context.Background()
	members, err := Up(ctx, tm, UpOptions{})
	var nr *NotReadyError
	if !errors.As(err, &nr) {
		t.Fatalf("up: %v, want a NotReadyError", err)
	}
	if len(nr.Agents) != 3 {
		t.Fatalf("not ready: %+v, want all three", nr.Agents)
	}
	msg := err.Error()
	for _, want := range []string{
		"agent analyst", "/nonexistent/codex-cli", "its process exited",
		"agent programmer", "giving up now",
		"agent tester", "does not recognise its pane", "this is not codex",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q:\n%s", want, msg)
		}
	}
	if len(members) != 3 || members[2].Pane == "" || !alive(members[2].PID) {
		t.Fatalf("members %+v: the tester's pane should still run", members)
	}
	tester := members[2]

	// Up again: the two dead ones are restarted (and fail again: first
	// with Codex's resume arguments, then, as those exit too, as a new
	// session), the running one is left alone (same pane, same process).
	members, err = Up(ctx, tm, UpOptions{})
	if !errors.As(err, &nr) || len(nr.Agents) != 2 {
		t.Fatalf("second up: %v, want the two dead agents not ready", err)
	}
	restartedTwice := func(state string) bool {
		return strings.HasPrefix(state, "restarted (new session: resuming failed, ") && strings.HasSuffix(state, ", not ready")
	}
	if !restartedTwice(members[0].State) || !restartedTwice(members[1].State) || members[2].State != "running" {
		t.Errorf("states %q %q %q", members[0].State, members[1].State, members[2].State)
	}
	if members[2].Pane != tester.Pane || members[2].PID != tester.PID {
		t.Errorf("the running agent was touched: %+v, was %+v", members[2], tester)
	}

	ended, err := Down(ctx, tm)
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 3 {
		t.Errorf("down found %d agents, want 3", len(ended))
	}
	if alive(tester.PID) {
		t.Errorf("the tester's process %d outlived down", tester.PID)
	}
	if found, err := Find(ctx, tm); err != nil || len(found) != 0 {
		t.Errorf("after down: %v %v", found, err)
	}
	if _, err := tm.Server().Run(ctx, nil, "list-sessions"); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Errorf("the team's server still runs after down: %v", err)
	}
}

// Down on a team that is not up does nothing and is no error.
func TestDownWithoutATeam(t *testing.T) {
	tm := testTeam(t, "[agents.analyst]\n")
	members, err := Down(context.Background(), tm)
	if err != nil || len(members) != 0 {
		t.Errorf("down: %v %v", members, err)
	}
}
