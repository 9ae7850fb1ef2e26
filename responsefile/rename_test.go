package responsefile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Every no-replace move that can run on this system (the system's own:
// renameat2 on Linux; the hard link and unlink FreeBSD uses; the look then
// rename of file systems with neither) moves a file, never replaces one,
// and moves a symlink as a symlink.
func TestEveryNoReplaceMoveKeepsItsPromise(t *testing.T) {
	for _, r := range responsefile.Renamers {
		t.Run(r, func(t *testing.T) {
			dir := t.TempDir()
			src, dst := filepath.Join(dir, "answer.md"), filepath.Join(dir, "001-analyst.md")
			os.WriteFile(src, []byte("the answer"), 0o644)
			if err := responsefile.Rename(r, src, dst); err != nil {
				t.Fatalf("move: %v", err)
			}
			if _, err := os.Lstat(src); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the file is still at its old name (%v)", err)
			}
			if b, _ := os.ReadFile(dst); string(b) != "the answer" {
				t.Errorf("moved file holds %q", b)
			}

			// An archived file in the way is never replaced.
			os.WriteFile(src, []byte("a newer answer"), 0o644)
			if err := responsefile.Rename(r, src, dst); !errors.Is(err, fs.ErrExist) {
				t.Errorf("move onto an existing file: %v, want fs.ErrExist", err)
			}
			if b, _ := os.ReadFile(dst); string(b) != "the answer" {
				t.Errorf("the file in the way was replaced: %q", b)
			}
			if b, _ := os.ReadFile(src); string(b) != "a newer answer" {
				t.Errorf("the file that could not move was changed: %q", b)
			}

			// A stale symlink moves as a link; its target stays where it is.
			target := filepath.Join(dir, "elsewhere.txt")
			os.WriteFile(target, []byte("not ours"), 0o644)
			link, linkDst := filepath.Join(dir, "link.md"), filepath.Join(dir, "002-analyst.stale.md")
			os.Symlink(target, link)
			if err := responsefile.Rename(r, link, linkDst); err != nil {
				t.Fatalf("move a symlink: %v", err)
			}
			if fi, err := os.Lstat(linkDst); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the symlink did not move as a symlink (%v)", err)
			}
			if b, _ := os.ReadFile(target); string(b) != "not ours" {
				t.Errorf("the link's target changed: %q", b)
			}
		})
	}
}
