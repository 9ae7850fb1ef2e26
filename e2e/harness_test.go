package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
)

// needCodex returns the Codex binary and checks tmux (see needCLI).
func needCodex(t *testing.T) string { return needCLI(t, "Codex", realcodex.Binary) }

// needCLI returns the binary that find locates and checks tmux. A missing
// component skips the test on a developer machine and fails it in CI (CI
// set).
func needCLI(t *testing.T, name string, find func() (string, error)) string {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s", what)
		}
		t.Skipf("skipping real %s test: %s", name, what)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		missing("tmux is not installed")
	}
	bin, err := find()
	if errors.Is(err, realcli.ErrNoBinary) {
		missing(err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// rig is one real Codex session in tmux talking to its own fake model.
type rig struct {
	t       *testing.T
	model   *fakemodel.Server
	codex   *realcodex.Session
	workdir string
}

// newRig starts a fake model and Codex in a fresh work folder and
// CODEX_HOME; opts sets the rest (approval, sandbox, tips; zero values are
// realcodex's defaults). Everything is ended in t.Cleanup.
func newRig(t *testing.T, opts realcodex.Options) *rig {
	t.Helper()
	bin := needCodex(t)
	ctx := context.Background()
	root := t.TempDir()
	workdir := filepath.Join(root, "work")
	home := filepath.Join(root, "codex-home")
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fakemodel.Start(ctx, fakemodel.OpenAIResponses{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Close()
		for _, p := range srv.Problems() {
			t.Logf("fake model: %s", p)
		}
	})
	opts.Bin, opts.Workdir, opts.Home, opts.BaseURL = bin, workdir, home, srv.URL
	s, err := realcodex.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		// With daemon_auto_start off, Codex must neither start the
		// app-server daemon nor copy its ~400 MB package into the home.
		for _, dir := range []string{"packages", "app-server-daemon"} {
			if _, err := os.Stat(filepath.Join(home, dir)); err == nil {
				t.Errorf("Codex created %s in CODEX_HOME: the app-server daemon was started", dir)
			}
		}
	})
	t.Logf("codex ready %v after start (tmux -L %s)", s.Ready.Sub(s.Started).Round(time.Millisecond), s.Socket)
	return &rig{t: t, model: srv, codex: s, workdir: workdir}
}

// waitScreen waits up to timeout for cond on the plain screen text and the
// pane title; on timeout the test fails showing the screen.
func (r *rig) waitScreen(timeout time.Duration, what string, cond func(plain, title string) bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := r.codex.WaitFor(ctx, 50*time.Millisecond, func(text, title string) bool {
		return cond(realcodex.StripANSI(text), title)
	})
	if err != nil {
		text, title, _ := r.codex.Capture(context.Background())
		r.t.Fatalf("waiting for %s: %v\ntitle: %q\nscreen:\n%s\nfake model problems: %v", what, err, title, realcodex.StripANSI(text), r.model.Problems())
	}
}

// submit pastes prompt and presses Enter.
func (r *rig) submit(prompt string) {
	r.t.Helper()
	if err := r.codex.Submit(context.Background(), prompt); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) keys(keys ...string) {
	r.t.Helper()
	if err := r.codex.Keys(context.Background(), keys...); err != nil {
		r.t.Fatal(err)
	}
}

// has reports whether every part occurs in s.
func has(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// spinning reports a running turn (spinner in the pane title).
func spinning(title string) bool { return realcodex.Spinning(title) }

// finished reports a turn that ended after last (text of its final reply,
// or of its prompt when the reply is empty): the title no longer spins and
// a "Worked for …" line follows the last occurrence of last.
func finished(plain, title, last string) bool {
	i := strings.LastIndex(plain, last)
	return !spinning(title) && i >= 0 && strings.Contains(plain[i:], "Worked for ")
}
