package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
)

// needGemini returns the Gemini CLI launcher and checks tmux (see needCLI).
func needGemini(t *testing.T) string { return needCLI(t, "Gemini CLI", realgemini.Binary) }

// newGeminiRig starts a fake Gemini API and Gemini CLI in a fresh work
// folder and HOME; opts sets the rest. Everything is ended in t.Cleanup.
func newGeminiRig(t *testing.T, opts realgemini.Options) *rig {
	t.Helper()
	return newGeminiRigAt(t, opts, t.TempDir())
}

// newGeminiRigAt is newGeminiRig with the work folder and HOME under root.
func newGeminiRigAt(t *testing.T, opts realgemini.Options, root string) *rig {
	t.Helper()
	bin := needGemini(t)
	ctx := context.Background()
	workdir := filepath.Join(root, "work")
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fakemodel.Start(ctx, fakemodel.Gemini{})
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
	s, err := realgemini.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	t.Logf("gemini ready %v after start (tmux -L %s)", s.Ready.Sub(s.Started).Round(time.Millisecond), s.Socket)
	return &rig{t: t, model: srv, cli: s, workdir: workdir, provider: "gemini"}
}

// geminiConfig is e2eConfig with the grace a loaded machine needs: Gemini
// CLI (Node) takes seconds to draw a prompt it took.
func geminiConfig(strict bool) handoff.Config {
	cfg := e2eConfig(strict)
	cfg.IdleGrace = 8 * time.Second
	return cfg
}

// geminiBusy reports Gemini CLI's busy line: "⠋ Thinking... (esc to cancel, 3s)".
func geminiBusy(plain string) bool { return strings.Contains(plain, "(esc to cancel") }

// geminiFinished reports a turn that ended with the message last: "✦ last"
// on the screen, nothing busy, the title back to ready.
func geminiFinished(plain, title, last string) bool {
	return strings.Contains(plain, "✦ "+last) && !geminiBusy(plain) && strings.HasPrefix(title, "◇")
}
