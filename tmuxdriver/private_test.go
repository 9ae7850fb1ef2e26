package tmuxdriver_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

func TestPrivateServerStartsAloneAndCloseLeavesNothing(t *testing.T) {
	requireTmux(t)
	ctx := context.Background()
	a, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-test", KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-test"})
	if err != nil {
		a.Close(ctx)
		t.Fatal(err)
	}
	defer b.Close(ctx)
	if a.Socket == b.Socket || a.SocketFile == b.SocketFile {
		t.Fatalf("two private servers share a socket: %s", a.Socket)
	}
	if a.Pane == "" || a.PanePID <= 0 {
		t.Errorf("pane %q pid %d", a.Pane, a.PanePID)
	}
	if out, err := a.Run(ctx, nil, "list-windows", "-F", "#{window_index}"); err != nil || out != "0\n1\n" {
		t.Errorf("KeepAlive: windows %q (%v), want 0 and 1", out, err)
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.SocketFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s left behind (%v)", a.SocketFile, err)
	}
	if _, err := a.Run(ctx, nil, "list-sessions"); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Errorf("server still answers after Close: %v", err)
	}
	if err := a.Close(ctx); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	// The other server was not touched.
	if _, err := b.Run(ctx, nil, "list-sessions"); err != nil {
		t.Errorf("closing one private server hurt another: %v", err)
	}
}
