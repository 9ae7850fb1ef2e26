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

	"github.com/handoff-fsm/handoff-fsm/internal/fakeanthropic"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
)

// needClaude returns the Claude Code binary and checks tmux. A missing
// component skips the test on a developer machine and fails it in CI.
func needClaude(t *testing.T) string {
	t.Helper()
	missing := func(what string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but %s", what)
		}
		t.Skipf("skipping real Claude Code test: %s", what)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		missing("tmux is not installed")
	}
	bin, err := realclaude.Binary()
	if errors.Is(err, realclaude.ErrNoBinary) {
		missing(err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// claudeRig is one real Claude Code session in tmux talking to its own fake
// Anthropic model.
type claudeRig struct {
	t       *testing.T
	model   *fakeanthropic.Server
	claude  *realclaude.Session
	workdir string
}

// newClaudeRig starts a fake model and Claude Code in a fresh work folder
// and HOME; opts sets the rest (permissions, retries, size; zero values are
// realclaude's defaults). Everything is ended in t.Cleanup.
func newClaudeRig(t *testing.T, opts realclaude.Options) *claudeRig {
	t.Helper()
	return newClaudeRigAt(t, opts, t.TempDir())
}

// newClaudeRigAt is newClaudeRig with the work folder and HOME under root.
func newClaudeRigAt(t *testing.T, opts realclaude.Options, root string) *claudeRig {
	t.Helper()
	bin := needClaude(t)
	ctx := context.Background()
	workdir := filepath.Join(root, "work")
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fakeanthropic.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Close()
		for _, p := range srv.Problems() {
			t.Logf("fake model: %s", p)
		}
	})
	opts.Bin, opts.Workdir, opts.Home, opts.BaseURL = bin, workdir, filepath.Join(root, "home"), srv.URL
	s, err := realclaude.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	t.Logf("claude ready %v after start (tmux -L %s)", s.Ready.Sub(s.Started).Round(time.Millisecond), s.Socket)
	return &claudeRig{t: t, model: srv, claude: s, workdir: workdir}
}

// waitScreen waits up to timeout for cond on the plain screen text and the
// pane title; on timeout the test fails showing the screen.
func (r *claudeRig) waitScreen(timeout time.Duration, what string, cond func(plain, title string) bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := r.claude.WaitFor(ctx, 50*time.Millisecond, func(text, title string) bool {
		return cond(realclaude.StripANSI(text), title)
	})
	if err != nil {
		text, title, _ := r.claude.CapturePlain(context.Background())
		r.t.Fatalf("waiting for %s: %v\ntitle: %q\nscreen:\n%s\nfake model problems: %v", what, err, title, text, r.model.Problems())
	}
}

func (r *claudeRig) submit(prompt string) {
	r.t.Helper()
	if err := r.claude.Submit(context.Background(), prompt); err != nil {
		r.t.Fatal(err)
	}
}

func (r *claudeRig) keys(keys ...string) {
	r.t.Helper()
	if err := r.claude.Keys(context.Background(), keys...); err != nil {
		r.t.Fatal(err)
	}
}

// turnDone matches the line that ends a Claude Code turn: "✻ Brewed for 3s".
var turnDone = regexp.MustCompile(`✻ \S+ for (\d+m )?\d+s`)

// claudeFinished reports a turn that ended after last (text of its final
// reply): a "✻ … for Ns" line follows it and nothing offers to interrupt.
func claudeFinished(plain, last string) bool {
	i := strings.LastIndex(plain, last)
	return i >= 0 && turnDone.MatchString(plain[i:]) && !strings.Contains(plain, "esc to interrupt")
}
