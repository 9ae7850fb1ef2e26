package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Tried from outside: the work folder's response folder (or its .tmp) is a
// symlink to another folder that holds an analyst_summary.md. send refuses
// at once with an error naming the link and a non-zero exit, and nothing
// in the other folder is archived, locked, read or written.
func TestSendRefusesASymlinkedResponseFolder(t *testing.T) {
	for _, linkAt := range []string{".tmp/agent-responses", ".tmp"} {
		t.Run(linkAt, func(t *testing.T) {
			a := startAgent(t, quickAgent...)
			outside := t.TempDir()
			answerDir := outside
			if linkAt == ".tmp" {
				answerDir = filepath.Join(outside, "agent-responses")
				os.MkdirAll(answerDir, 0o755)
			}
			os.WriteFile(filepath.Join(answerDir, "analyst_summary.md"), []byte("an answer that is not ours"), 0o644)
			link := filepath.Join(a.workdir, filepath.FromSlash(linkAt))
			os.MkdirAll(filepath.Dir(link), 0o755)
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			before := listTree(t, outside)

			stdout, stderr, code := cli(t, "", a.sendArgs(append(quickWait, "--prompt", "do it")...)...)
			if code != exitFailure || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and nothing on stdout", code, stdout, exitFailure)
			}
			if !strings.Contains(stderr, link+" is a symlink to "+outside) {
				t.Errorf("stderr does not name the link and its target:\n%s", stderr)
			}
			if after := listTree(t, outside); after != before {
				t.Errorf("the folder outside the work folder was touched:\nbefore %s\nafter  %s", before, after)
			}
			if runs, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*")); len(runs) != 0 && linkAt != ".tmp" {
				t.Errorf("an archive was made: %v", runs)
			}
			if strings.Contains(a.screen(t), "do it") {
				t.Errorf("the prompt reached the agent")
			}
		})
	}
}

// listTree lists the names and contents under dir.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(p + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		b.WriteString("; ")
		return nil
	})
	return b.String()
}
