package tmuxdriver_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		out          string
		major, minor int
		old          bool // older than MinVersion
		noControl    bool // older than ControlVersion
	}{
		{"tmux 3.3a\n", 3, 3, false, false},
		{"tmux 3.2", 3, 2, false, false},
		{"tmux 3.1c", 3, 1, false, true},
		{"tmux 3.0a", 3, 0, false, true},
		{"tmux 2.9a", 2, 9, true, true},
		{"tmux 1.8", 1, 8, true, true},
		{"tmux next-3.6", 3, 6, false, false},
		{"tmux 3.2-rc3", 3, 2, false, false},
		{"tmux 10.0", 10, 0, false, false},
		{"tmux master", 1 << 30, 0, false, false},
		{"tmux openbsd-7.5", 1 << 30, 0, false, false},
	} {
		v, err := tmuxdriver.ParseVersion(tc.out)
		if err != nil || v.Major != tc.major || v.Minor != tc.minor {
			t.Errorf("%q: %+v, %v", tc.out, v, err)
		}
		if v.Less(tmuxdriver.MinVersion) != tc.old || v.Less(tmuxdriver.ControlVersion) != tc.noControl {
			t.Errorf("%q: older than %s: %v, than %s: %v", tc.out, tmuxdriver.MinVersion, v.Less(tmuxdriver.MinVersion),
				tmuxdriver.ControlVersion, v.Less(tmuxdriver.ControlVersion))
		}
	}
	if _, err := tmuxdriver.ParseVersion("screen 4.9"); err == nil {
		t.Errorf("a version that is not tmux's was taken")
	}
}

// fakeTmux is a tmux that says it is version (to -V) and passes any other
// call to the real tmux.
func fakeTmux(t *testing.T, version string) string {
	t.Helper()
	real, err := exec.LookPath("tmux")
	if err != nil {
		real = "/nonexistent/tmux"
	}
	p := filepath.Join(t.TempDir(), "tmux")
	script := "#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'tmux " + version + "'; exit 0; fi\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// tmux -V is asked once; below the oldest supported release, the error says
// which tmux this is and which is needed.
func TestCheckVersion(t *testing.T) {
	ctx := context.Background()
	old := tmuxdriver.Server{Binary: fakeTmux(t, "2.9a")}
	_, err := old.CheckVersion(ctx)
	if !errors.Is(err, tmuxdriver.ErrTmuxTooOld) || !strings.Contains(err.Error(), "tmux 2.9a") || !strings.Contains(err.Error(), "3.0 or newer") {
		t.Errorf("tmux 2.9a: %v", err)
	}
	for _, ok := range []string{"3.0a", "3.3a", "next-3.6"} {
		if v, err := (tmuxdriver.Server{Binary: fakeTmux(t, ok)}).CheckVersion(ctx); err != nil {
			t.Errorf("tmux %s: %v (%+v)", ok, err, v)
		}
	}
	_, err = tmuxdriver.Server{Binary: "/nonexistent/tmux"}.CheckVersion(ctx)
	if !errors.Is(err, tmuxdriver.ErrTmuxNotFound) {
		t.Errorf("no tmux: %v, want ErrTmuxNotFound", err)
	}
}

// With a tmux older than 3.2, control mode cannot filter its output:
// StartControl says so and attaches nothing, and the pane is read with a
// tmux process per look, as without control mode.
func TestControlModeFallsBackBelowTmux32(t *testing.T) {
	srv := testServer(t)
	// The first pane's shell execs its command a moment after the start;
	// until then the pane reads as an agent that exited to a shell.
	waitFor(t, "the first pane to run its command", func() bool {
		out, err := srv.Run(context.Background(), nil, "display-message", "-p", "-t", "main:0.0", "#{pane_current_command}")
		return err == nil && strings.TrimSpace(out) == "sleep"
	})
	srv.Binary = fakeTmux(t, "3.1c")
	var told []error
	o, ctl, err := tmuxdriver.StartControl(context.Background(), tmuxdriver.Options{Server: srv, Target: "main:0.0"}, func(err error) { told = append(told, err) })
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	if len(told) != 1 || !errors.Is(told[0], tmuxdriver.ErrTmuxTooOld) || !strings.Contains(told[0].Error(), "needs tmux 3.2") {
		t.Errorf("told %v; want one message saying control mode needs tmux 3.2", told)
	}
	if o.Runner != nil {
		t.Errorf("a control client runner was set")
	}
	o.Classifier = testClassifier{}
	pane, err := tmuxdriver.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pane.Observe(context.Background()); err != nil {
		t.Errorf("reading the pane without control mode: %v", err)
	}
}
