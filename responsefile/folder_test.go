package responsefile_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// snapshot lists every entry under dir with its content (a link as its
// target), to show that nothing there was touched.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Lstat(p)
		line := p + " " + fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			line += " -> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			line += " " + string(b)
		}
		out = append(out, line)
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// wantLinkError checks that err refuses the link at link, naming it.
func wantLinkError(t *testing.T, what string, err error, link string) {
	t.Helper()
	var le *responsefile.FolderLinkError
	if !errors.Is(err, responsefile.ErrSymlinkedFolder) || !errors.Is(err, handoff.ErrResponseFile) || !errors.As(err, &le) {
		t.Errorf("%s: %v; want a refused symlinked folder", what, err)
		return
	}
	if le.Link != link || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("%s: %q does not name the link %s", what, err, link)
	}
}

// A response or archive folder that is a symlink, or lies under one below
// the work folder, is refused by every operation with an error naming the
// link, and nothing outside the work folder is read, moved, locked or
// written.
func TestSymlinkedFoldersAreRefusedAndNothingOutsideIsTouched(t *testing.T) {
	for _, tc := range []struct {
		name string
		// plant makes the link in work pointing into outside; it returns
		// the link's path.
		plant func(t *testing.T, work, outside string) string
	}{
		{"response folder", func(t *testing.T, work, outside string) string {
			os.MkdirAll(filepath.Join(work, ".tmp"), 0o755)
			link := filepath.Join(work, ".tmp", "agent-responses")
			os.Symlink(outside, link)
			return link
		}},
		{".tmp", func(t *testing.T, work, outside string) string {
			os.MkdirAll(filepath.Join(outside, "agent-responses"), 0o755)
			os.Rename(filepath.Join(outside, "analyst_summary.md"), filepath.Join(outside, "agent-responses", "analyst_summary.md"))
			link := filepath.Join(work, ".tmp")
			os.Symlink(outside, link)
			return link
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, outside := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(outside, "analyst_summary.md"), []byte("someone else's file"), 0o644)
			link := tc.plant(t, work, outside)
			before := snapshot(t, outside)
			p, _ := handoff.ResponsePath(work, "analyst")
			a := responsefile.NewArchive(work, time.Now())

			wantLinkError(t, "EnsureDir", responsefile.EnsureDir(work), link)
			_, err := responsefile.Present(p)
			wantLinkError(t, "Present", err, link)
			_, _, err = responsefile.Read(p, 1<<20)
			wantLinkError(t, "Read", err, link)
			_, err = responsefile.Consume(p, "analyst", 1<<20, "", a)
			wantLinkError(t, "Consume", err, link)
			_, err = responsefile.Recover(p, "analyst", 1<<20, "", a)
			wantLinkError(t, "Recover", err, link)
			_, err = responsefile.ClearStale(p, "analyst", a)
			wantLinkError(t, "ClearStale", err, link)
			_, err = a.Store(p, "analyst", responsefile.ArchiveStale)
			wantLinkError(t, "Store", err, link)
			_, err = responsefile.Lock(context.Background(), p, "analyst", work, false)
			wantLinkError(t, "Lock", err, link)
			wantLinkError(t, "MarkTurnComplete", responsefile.MarkTurnComplete(p, []byte("{}")), link)
			wantLinkError(t, "ClearMarker", responsefile.ClearMarker(p), link)
			_, err = responsefile.Watch(p)
			wantLinkError(t, "Watch", err, link)
			os.WriteFile(filepath.Join(outside, ".analyst_summary.md.turn-complete"), nil, 0o644)
			if responsefile.MarkerSince(responsefile.TurnMarker(p), time.Time{}) {
				t.Errorf("MarkerSince saw a marker through the link")
			}
			os.Remove(filepath.Join(outside, ".analyst_summary.md.turn-complete"))

			if after := snapshot(t, outside); after != before {
				t.Errorf("the folder outside was touched:\nbefore\n%s\nafter\n%s", before, after)
			}
			if _, err := os.Lstat(a.Dir()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("an archive was made (%v)", err)
			}
		})
	}
}

// A run's archive folder that is a symlink is refused: the response stays
// at its path.
func TestSymlinkedArchiveFolderIsRefused(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	os.WriteFile(p, []byte("the answer"), 0o644)
	a := responsefile.NewArchive(work, time.Now())
	os.Symlink(outside, a.Dir())
	_, err := responsefile.Consume(p, "analyst", 1<<20, "", a)
	wantLinkError(t, "Consume", err, a.Dir())
	if b, _ := os.ReadFile(p); string(b) != "the answer" {
		t.Errorf("the response left its path: %q", b)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("something was archived outside: %v", entries)
	}
}

// Both ways of opening a folder refuse every link below the work folder:
// openat2 (Linux 5.6+, one call) and the walk, component by component with
// O_NOFOLLOW, that the other systems use and that explains the refusal.
func TestBothWaysOfOpeningAFolderRefuseLinks(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(work, "real", "dir"), 0o755)
	os.MkdirAll(filepath.Join(outside, "dir"), 0o755)
	os.Symlink(outside, filepath.Join(work, "linked"))
	os.Symlink(filepath.Join(work, "real", "dir"), filepath.Join(work, "real", "inner-link"))

	if err := responsefile.WalkFolder(work, []string{"real", "dir"}, false); err != nil {
		t.Errorf("walk to a real folder: %v", err)
	}
	if err := responsefile.WalkFolder(work, []string{"made", "here"}, true); err != nil {
		t.Errorf("walk creating folders: %v", err)
	}
	err := responsefile.WalkFolder(work, []string{"linked", "dir"}, false)
	wantLinkError(t, "walk through a link", err, filepath.Join(work, "linked"))
	err = responsefile.WalkFolder(work, []string{"real", "inner-link"}, true)
	wantLinkError(t, "walk to a link, creating", err, filepath.Join(work, "real", "inner-link"))

	err = responsefile.OpenNoLinks(work, "real/dir")
	if err != nil {
		// Not Linux, an old kernel, or a seccomp filter: the walk does it all.
		t.Logf("openat2 is not available here (%v); the walk alone guards the folders", err)
		return
	}
	for _, rel := range []string{"linked/dir", "real/inner-link", "../" + filepath.Base(outside)} {
		if err := responsefile.OpenNoLinks(work, rel); err == nil {
			t.Errorf("openat2 opened %s", rel)
		}
	}
}
