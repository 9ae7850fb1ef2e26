// The Python client (handoff_client.py, standard library only) against a
// live service and a simulated agent in a private tmux server.
package pyclient_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

func need(t *testing.T, bin string) {
	t.Helper()
	if _, err := exec.LookPath(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed but CI is set: this test must run in CI", bin)
		}
		t.Skipf("skipping: %s is not installed", bin)
	}
}

func TestThePythonClient(t *testing.T) {
	need(t, "tmux")
	need(t, "python3")
	bin := filepath.Join(t.TempDir(), "handoff-fsm")
	if err := testkit.GoBuild(bin, "../../cmd/handoff-fsm"); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	ctx := context.Background()
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "hfpy", Width: 110, Height: 32, Dir: work,
		Command: handoff.ShellQuote(bin) + " sim-agent --echo --startup 200ms --work 500ms --stream 200ms --cwd " + handoff.ShellQuote(work)})
	if err != nil {
		t.Fatal(err)
	}
	defer priv.Close(ctx)
	time.Sleep(time.Second) // the agent draws its prompt

	run, err := os.MkdirTemp("", "hfpy")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	sock := filepath.Join(run, "run", "s.sock")
	svc, err := serve.New(serve.Options{StateDir: t.TempDir(), Control: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	l, err := serve.Listen(serve.Address{Network: "unix", Addr: sock}, false)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: svc.Handler("")}
	go srv.Serve(l)
	defer srv.Close()

	python := func(args ...string) (string, int) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, "python3", args...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := python("client_check.py", "unix:"+sock, priv.Socket, priv.Pane, work); code != 0 || !strings.HasSuffix(out, "ok\n") {
		t.Fatalf("client_check.py: exit %d\n%s", code, out)
	}
	// The command line: the response on stdout, send's exit code.
	out, code := python("handoff_client.py", "--server", "unix:"+sock, "--target", priv.Pane, "--socket", priv.Socket,
		"--role", "analyst", "--workdir", work, "--prompt", "hello from the shell", "--poll", "0.25", "--idle-grace", "3")
	if code != 0 || out != "hello from the shell\n" {
		t.Fatalf("handoff_client.py: exit %d\n%s", code, out)
	}
	out, code = python("handoff_client.py", "--server", "unix:"+sock, "--target", priv.Pane, "--socket", priv.Socket,
		"--role", "analsyt", "--workdir", work, "--prompt", "x")
	if code != 2 || !strings.Contains(out, "role") {
		t.Fatalf("a bad role: exit %d\n%s", code, out)
	}
}
