package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realkimi"
)

// Kimi Code's Stop hook ([[hooks]] in config.toml) fires in this offline
// setup when a turn ends, and the wait decides on its marker (see
// waitOnStopMarker): the marker has the event, the session and the
// folder; the answer comes from the response file.
func TestRealKimiStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realkimi.CLI.Require(t)
	stopHookEndsTheWait(t, func(hooks map[string]string) *rig {
		return newKimiRigAt(t, realkimi.Options{Hooks: hooks}, t.TempDir())
	})
}

// Kimi Code in a team: up wires its Stop hook through KIMI_CODE_HOME, a
// home of the run's own whose config.toml is the user's (here the one
// KIMI_CODE_HOME names for up) with a [[hooks]] entry appended, and which
// trusts the folders the user's home trusts: the user answered Kimi Code's
// trust question for the work folder once, and the first up starts the
// agent at its composer with nobody at the keyboard (exit 0). The hook
// then marks the end of each dispatched turn; after the turn Kimi Code
// dies, and up restarts it with --continue, which goes on with the
// conversation in the same session. down leaves no process behind.
func TestRealTeamHookAndResumeOfKimi(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{{role: "reviewer", provider: "kimi"}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	userHome := "KIMI_CODE_HOME=" + filepath.Join(tm.home("reviewer"), ".kimi-code")
	up := func() (string, string, int) {
		cmd := exec.CommandContext(ctx, tm.exe, "up", "-f", tm.file)
		cmd.Dir, cmd.Env, cmd.WaitDelay = tm.work, append(os.Environ(), userHome), 10*time.Second
		var out, errs strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errs.String(), code
	}
	out, errs, code := up()
	t.Logf("up:\n%s%s", out, errs)
	if code != 0 || !regexp.MustCompile(`(?m)^reviewer +%\d+ +kimi .* started .*KIMI_CODE_HOME`).MatchString(out) {
		t.Fatalf("up: exit %d, want 0 with the reviewer started, its hook wired through KIMI_CODE_HOME", code)
	}
	panes := paneIDs(ctx, t, tm.srv)
	waitKimiComposer(ctx, t, tm, panes["reviewer"])
	tm.sendTwiceOnTheHook(ctx, t, "reviewer", "kimi")
	// The turn that ended right before the SIGKILL may be missing from
	// the resumed session: Kimi Code had not stored it yet (seen); the
	// earlier one is there.
	tm.killResumeDown(ctx, t, map[string]string{"reviewer": "Say hello as the reviewer (1)"}, 90*time.Second, up)
}

// waitKimiComposer waits until the pane shows Kimi Code's composer ready
// for a prompt.
func waitKimiComposer(ctx context.Context, t *testing.T, tm *testTeam, pane string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		out, err := tm.srv.Run(ctx, nil, "capture-pane", "-p", "-t", pane)
		if err == nil && realkimi.Ready(out, "") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Kimi Code's composer does not show within 2 minutes:\n%s", out)
		}
	}
}

// newKimiRigAt starts a fake Chat Completions API (shell tool Bash) and
// Kimi Code in root's work folder and HOME; opts sets the rest.
// Everything ends in t.Cleanup.
func newKimiRigAt(t *testing.T, opts realkimi.Options, root string) *rig {
	t.Helper()
	return startRig(t, realkimi.CLI, fakemodel.ChatCompletions{ShellTool: realkimi.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realkimi.Start(ctx, opts) })
}
