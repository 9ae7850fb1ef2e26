package responsefile_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// childConsume consumes the response file at path into the archive folder
// with the no-replace move named, and kills itself (SIGKILL) at the step
// named: "path|archive dir|step|move".
func childConsume(arg string) error {
	parts := strings.Split(arg, "|")
	if len(parts) != 4 {
		return fmt.Errorf("bad argument %q", arg)
	}
	path, dir, step, move := parts[0], parts[1], parts[2], parts[3]
	responsefile.SetFailpoint(func(s string) {
		if s == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	})
	_, err := responsefile.Consume(path, "analyst", 1<<20, "", responsefile.UseRenamer(responsefile.OpenArchive(dir, 0), move))
	return err
}

// copies lists where the response is: at its path, and in the archive.
func copies(t *testing.T, path, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if b, err := os.ReadFile(path); err == nil {
		out[path] = string(b)
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Join(dir, e.Name())] = string(b)
	}
	return out
}

// A process killed (SIGKILL) at any step of Consume leaves the response
// whole, at its path or in the archive, never nowhere; and Recover, as a
// resumed wait calls it, then returns it byte for byte, in one place. With
// each no-replace move that can run here: the system's own, whose one step
// leaves the response in exactly one place; and the hard link and unlink
// of FreeBSD, which a kill between its steps leaves as one file under two
// names until Recover drops the name at the path.
func TestKilledAtEveryStepOfConsumeLosesNothing(t *testing.T) {
	for _, move := range responsefile.Renamers {
		t.Run(move, func(t *testing.T) { killedAtEveryStepOfConsume(t, move) })
	}
}

func killedAtEveryStepOfConsume(t *testing.T, move string) {
	contents := []struct{ name, text string }{
		{"answer", "the answer\n\xff\xfe not UTF-8, a NUL \x00, and more\n"},
		{"blank", " \n\t\n"},
	}
	const reps = 3
	points, kills := 0, 0
	for _, c := range contents {
		// The steps Consume goes through for this content, seen in process.
		var steps []string
		{
			work := t.TempDir()
			p := testkit.ResponseFile(t, work, "analyst")
			os.WriteFile(p, []byte(c.text), 0o644)
			responsefile.SetFailpoint(func(s string) { steps = append(steps, s) })
			_, err := responsefile.Consume(p, "analyst", 1<<20, "", responsefile.UseRenamer(responsefile.OpenArchive(filepath.Join(work, "archive"), 0), move))
			responsefile.SetFailpoint(nil)
			if err != nil || len(steps) < 4 {
				t.Fatalf("%s: steps %v, %v", c.name, steps, err)
			}
		}
		for _, step := range steps {
			points++
			for range reps {
				work := t.TempDir()
				p := testkit.ResponseFile(t, work, "analyst")
				if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(work, ".tmp", "run-x")
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), childEnv+"=consume:"+p+"|"+dir+"|"+step+"|"+move)
				cmd.Stderr = os.Stderr
				err := cmd.Run()
				ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
				if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("%s at %q: the child was not killed there: %v", c.name, step, err)
				}
				kills++
				got := copies(t, p, dir)
				if len(got) != 1 && !(len(got) == 2 && oneFile(t, got)) {
					t.Fatalf("%s killed at %q: the response is in %d places: %v", c.name, step, len(got), got)
				}
				for where, text := range got {
					if text != c.text {
						t.Fatalf("%s killed at %q: %s holds %q, not the whole response", c.name, step, where, text)
					}
				}
				// The resumed wait finishes the consume.
				rc, err := responsefile.Recover(p, "analyst", 1<<20, "", responsefile.UseRenamer(responsefile.OpenArchive(dir, 0), move))
				if err != nil || rc.Content != c.text || rc.Blank != handoff.Blank(c.text) {
					t.Fatalf("%s killed at %q: recovered %q blank %v, %v", c.name, step, rc.Content, rc.Blank, err)
				}
				after := copies(t, p, dir)
				want := "001-analyst.md"
				if rc.Blank {
					want = "001-analyst.empty.md"
				}
				if len(after) != 1 || after[filepath.Join(dir, want)] != c.text || rc.Archived != filepath.Join(dir, want) {
					t.Fatalf("%s killed at %q: after recovery %v (archived %s), want only %s", c.name, step, after, rc.Archived, want)
				}
			}
		}
	}
	t.Logf("%s: %d kill points of Consume (answer and blank file), %d processes killed: the response was whole every time, and in exactly one place after Recover", move, points, kills)
}

// oneFile reports whether the paths of got are names of one file (a kill
// between a hard link and its unlink).
func oneFile(t *testing.T, got map[string]string) bool {
	t.Helper()
	var first os.FileInfo
	for p := range got {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if first != nil && !os.SameFile(first, fi) {
			return false
		}
		first = fi
	}
	return true
}

func TestRecoverWithNothingToRecoverIsAnError(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	dir := filepath.Join(work, ".tmp", "run-x")
	if _, err := responsefile.Recover(p, "analyst", 1<<20, "", responsefile.OpenArchive(dir, 0)); !errors.Is(err, handoff.ErrResponseFile) {
		t.Fatalf("%v, want ErrResponseFile", err)
	}
	// Stale files and other roles' responses are not this wait's.
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "001-analyst.stale.md"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "002-tester.md"), []byte("theirs"), 0o644)
	os.WriteFile(filepath.Join(dir, "003-analyst.md"), []byte("earlier"), 0o644)
	os.WriteFile(filepath.Join(dir, "005-analyst.md"), []byte("mine"), 0o644)
	c, err := responsefile.Recover(p, "analyst", 1<<20, "", responsefile.OpenArchive(dir, 3))
	if err != nil || c.Content != "mine" {
		t.Fatalf("recovered %q, %v; want the one archived after number 3", c.Content, err)
	}
}
