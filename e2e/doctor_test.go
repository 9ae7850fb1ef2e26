package e2e

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
)

// TestDoctor runs `handoff-fsm doctor --provider NAME --command BIN` on
// every provider's real CLI, as a user would: it must exit 0 with the
// table (the CLI, its path and version, the tested window, every case
// right), and leave nothing behind: no file or tmux socket in its
// temporary folders, no process working in them. The cases are live's,
// the ones the e2e suite would otherwise run itself, so this is where
// they run in CI.
func TestDoctor(t *testing.T) {
	eachConformer(t, func(t *testing.T, c conformer) {
		cliBin := c.cli.Require(t)
		bin := buildCommand(t) // after t.Parallel: the build does not hold up the package's other tests
		tmp := t.TempDir()
		cmd := exec.Command(bin, "doctor", "--provider", c.cli.Name, "--command", cliBin)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "TMUX_TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		t.Logf("handoff-fsm doctor:\n%s", out)
		var ee *exec.ExitError
		if errors.As(err, &ee) || err != nil {
			t.Fatalf("doctor on %s: %v, want exit 0", c.cli.Name, err)
		}
		table := string(out)
		if !strings.Contains(table, cliBin) || !strings.Contains(table, "version "+c.cli.Version) || !strings.Contains(table, "tested window ") {
			t.Errorf("the table does not show the CLI's path %s, version %s and window", cliBin, c.cli.Version)
		}
		for _, name := range live.Cases() {
			if !strings.Contains(table, "right  "+name) {
				t.Errorf("no right %s row", name)
			}
		}
		assertNothingLeft(t, tmp)
	})
}

// assertNothingLeft fails t when dir holds a file or socket (an empty
// folder, such as tmux's own tmux-UID, is allowed) or a process still
// works in it.
func assertNothingLeft(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("doctor left %s", path)
		}
		return nil
	})
	procs, _ := filepath.Glob("/proc/[0-9]*/cwd")
	for _, p := range procs {
		if cwd, err := os.Readlink(p); err == nil && strings.HasPrefix(cwd, dir) {
			t.Errorf("process %s still works in %s", filepath.Base(filepath.Dir(p)), cwd)
		}
	}
}
