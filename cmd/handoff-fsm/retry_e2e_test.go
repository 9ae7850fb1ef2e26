package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// flakyTmux puts a "tmux" first on PATH that runs the real one, except
// that once the file <dir>/flaky exists, the status polls it names hang
// past the call timeout: every second poll with "alternate" in the file
// (never two in a row), every poll with "always".
func flakyTmux(t *testing.T) (pathEnv, control string) {
	t.Helper()
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	control = filepath.Join(dir, "flaky")
	script := `#!/bin/sh
mode=$(cat "` + control + `" 2>/dev/null)
case "$*" in
*display-message*capture-pane*)
	if [ -n "$mode" ]; then
		n=$(cat "` + dir + `/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "` + dir + `/count"
		if [ "$mode" = always ] || [ $((n % 2)) -eq 1 ]; then exec sleep 30; fi
	fi;;
esac
exec "` + real + `" "$@"
`
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + dir + ":" + os.Getenv("PATH"), control
}

// Real tmux calls that time out: one failed poll never ends a dispatch,
// and after --max-poll-failures in a row it fails with the cause (exit 4).
func TestSendRetriesTimedOutTmuxPolls(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"alternate", "always"} {
		t.Run(mode, func(t *testing.T) {
			a := startRelAgent(t, "--echo", "--startup", "300ms", "--work", "3s", "--stream", "300ms")
			pathEnv, control := flakyTmux(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			// The timeout is short next to the hung calls (30 s) but long
			// enough for a real call on a loaded machine (1.5 s was not).
			send := cliCmd(ctx, a.sendArgs(append(quickWait, "--tmux-timeout", "4s", "--prompt", "through a flaky tmux")...)...)
			send.Env = append(send.Env, pathEnv)
			var out, errb testkit.Buffer
			send.Stdout, send.Stderr = &out, &errb
			if err := send.Start(); err != nil {
				t.Fatal(err)
			}
			waitOutput(t, &errb, "AwaitingStart → Working")
			if err := os.WriteFile(control, []byte(mode), 0o644); err != nil {
				t.Fatal(err)
			}
			send.Wait()
			code := send.ProcessState.ExitCode()
			switch mode {
			case "alternate":
				if code != exitOK || out.String() != "through a flaky tmux\n" || !strings.Contains(errb.String(), "trying again on the next poll") {
					t.Fatalf("exit %d, stdout %q; want the answer despite the failed polls\n%s", code, out.String(), errb.String())
				}
			case "always":
				if code != exitTerminal || !strings.Contains(errb.String(), "timed out") || strings.Count(errb.String(), "trying again") != 2 {
					t.Fatalf("exit %d; want a terminal error after 3 failed polls, saying the call timed out\n%s", code, errb.String())
				}
			}
		})
	}
}
