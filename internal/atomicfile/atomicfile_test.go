package atomicfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/atomicfile"
)

// Write replaces the file with the new content and its permissions, and
// leaves no temporary file behind.
func TestWriteReplacesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "new\n" {
		t.Fatalf("read back %q, %v", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the folder holds %d files, want the one written", len(entries))
	}
}

// A failed write leaves the old file as it was and no temporary file.
func TestAFailedWriteLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "marker.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A folder where the file's folder should be: the temporary file
	// cannot even be made.
	if err := atomicfile.Write(filepath.Join(path, "x.json"), []byte("new"), 0o600); err == nil {
		t.Fatal("writing below a file worked")
	}
	// The rename fails: the target is a folder that is not empty.
	target := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(target, []byte("new"), 0o600); err == nil {
		t.Fatal("replacing a folder that holds files worked")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("left behind: %s", e.Name())
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("the old file holds %q", b)
	}
}
