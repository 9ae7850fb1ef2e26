package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/serve"
)

// explain on a live pane, on a dispatch of the service (through it, and
// from its state folder once it is gone) and on a send --record trace of a
// real tmux pane: each says what the screen was read as and why.
func TestExplainALivePaneADispatchAndARecording(t *testing.T) {
	t.Parallel()
	a := startAgent(t, quickAgent...)
	out, errOut, code := cli(t, "", "explain", "--socket", a.srv.Socket, "--target", a.pane.Target())
	if code != exitOK || !strings.Contains(out, "status   idle\n") || !strings.Contains(out, "why      ") || !strings.Contains(out, "codex's rules saw") {
		t.Fatalf("explain --target: exit %d\n%s%s", code, out, errOut)
	}

	dir, sock := serveDirs(t)
	s := startServe(t, dir, sock)
	v, err := s.client.Submit(context.Background(), submitTo(a, "analyst", "Explain yourself", false))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := serve.Wait(context.Background(), s.client, v.ID); err != nil || f.Outcome != "done" {
		t.Fatalf("dispatch %+v %v", f, err)
	}
	check := func(how, out string) {
		t.Helper()
		for _, want := range []string{
			"dispatch " + v.ID + ": analyst asked on pane " + a.pane.Target(),
			"ended    done (file), exit 0",
			"on active (status processing)",
			"decided by the screen\n             screen: ",
			"on file_ready (status completed)",
			"decided by the response file",
			"             signals: ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("explain --dispatch %s lacks %q:\n%s", how, want, out)
			}
		}
	}
	out, errOut, code = cli(t, "", "explain", "--dispatch", v.ID, "--server", "unix:"+sock)
	if code != exitOK {
		t.Fatalf("explain --dispatch --server: exit %d: %s", code, errOut)
	}
	check("through the service", out)
	s.kill()
	out, errOut, code = cli(t, "", "explain", "--dispatch", v.ID, "--state-dir", dir)
	if code != exitOK {
		t.Fatalf("explain --dispatch --state-dir: exit %d: %s", code, errOut)
	}
	check("from the state folder", out)

	rec := filepath.Join(t.TempDir(), "send.trace")
	if _, errOut, code := cli(t, "", a.sendArgs("--poll", "250ms", "--idle-grace", "3s", "--record", rec, "--prompt", "Record me")...); code != exitOK {
		t.Fatalf("send --record: exit %d: %s", code, errOut)
	}
	out, errOut, code = cli(t, "", "explain", "--record", rec)
	if code != exitOK || !strings.Contains(out, ": done (file)") || !strings.Contains(out, "decided by the response file\n             screen: ") {
		t.Fatalf("explain --record: exit %d\n%s%s", code, out, errOut)
	}
}
