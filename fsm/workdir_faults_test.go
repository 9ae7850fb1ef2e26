package fsm_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// A work folder that cannot hold the response files is a clear error
// before anything is sent; nothing in the way is overwritten or followed.
func TestUnusableWorkFoldersAreClearErrors(t *testing.T) {
	root := t.TempDir()
	aFile := filepath.Join(root, "a-file")
	os.WriteFile(aFile, []byte("keep me"), 0o644)

	blockedDir := filepath.Join(root, "blocked")
	os.MkdirAll(filepath.Join(blockedDir, ".tmp"), 0o755)
	os.WriteFile(filepath.Join(blockedDir, ".tmp", "agent-responses"), []byte("keep me"), 0o644)

	linkedLock := filepath.Join(root, "linked")
	responsefile.EnsureDir(linkedLock)
	p, _ := handoff.ResponsePath(linkedLock, "analyst")
	target := filepath.Join(root, "elsewhere")
	os.WriteFile(target, []byte("keep me"), 0o644)
	os.Symlink(target, responsefile.LockPath(p))

	for _, tc := range []struct {
		name, work, want string
	}{
		{"work folder is a file", aFile, "not a directory"},
		{"response folder is a file", blockedDir, "not a directory"},
		{"lock file is a symlink", linkedLock, "response slot lock"},
	} {
		a := newGated("", "")
		_, err := fsm.SendAndWait(context.Background(), a, a, "task", fsm.Options{Role: "analyst", Workdir: tc.work, Logger: quiet()})
		if err == nil || !strings.Contains(err.Error(), tc.want) || a.sent != 0 {
			t.Errorf("%s: %v (sent %d); want an error saying %q, nothing sent", tc.name, err, a.sent, tc.want)
		}
	}
	for _, f := range []string{aFile, filepath.Join(blockedDir, ".tmp", "agent-responses"), target} {
		if b, _ := os.ReadFile(f); string(b) != "keep me" {
			t.Errorf("%s was overwritten: %q", f, b)
		}
	}
}
