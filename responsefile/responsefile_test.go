package responsefile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
	"github.com/handoff-fsm/handoff-fsm/responsefile"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// The base spec deletes a stale file; the modified spec archives it, so the
// previous answer is kept.
func TestStaleFileFromPreviousRunExists(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	if err := os.WriteFile(p, []byte("last turn's answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := responsefile.NewArchive(work, time.Now())
	archived, err := responsefile.ClearStale(p, "analyst", a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale file still at %s", p)
	}
	if want := filepath.Join(a.Dir(), "001-analyst.stale.md"); archived != want {
		t.Errorf("archived to %s, want %s", archived, want)
	}
	if b, err := os.ReadFile(archived); err != nil || string(b) != "last turn's answer" {
		t.Errorf("archived copy holds %q (%v)", b, err)
	}
}

func TestNoStaleFileExists(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	a := responsefile.NewArchive(work, time.Now())
	archived, err := responsefile.ClearStale(p, "analyst", a)
	if err != nil || archived != "" {
		t.Fatalf("ClearStale with no file = %q, %v; want \"\", nil", archived, err)
	}
	if _, err := os.Stat(a.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an archive folder was created with nothing to archive")
	}
}

func TestDirectoryDoesNotExist(t *testing.T) {
	work := filepath.Join(t.TempDir(), "deep", "er")
	if err := responsefile.EnsureDir(work); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(work, ".tmp", "agent-responses"))
	if err != nil || !fi.IsDir() {
		t.Fatalf("response dir not created: %v", err)
	}
	// Idempotent.
	if err := responsefile.EnsureDir(work); err != nil {
		t.Errorf("second EnsureResponseDir: %v", err)
	}
}

func TestSymlinkedResponseFileIsRefusedAndLeftInPlace(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	target := filepath.Join(work, "secret.txt")
	if err := os.WriteFile(target, []byte("not an answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	_, _, err := responsefile.Read(p, 1<<20)
	if !errors.Is(err, handoff.ErrResponseFile) || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("want ErrResponseFile naming the symlink, got %v", err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was not left in place (%v)", err)
	}
	// The engine ends the wait at once with the same error.
	assertWaitStopsOnUnusableFile(t, work)
}

func TestOversizedResponseFileIsRefusedAndLeftInPlace(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	big := strings.Repeat("x", 101)
	if err := os.WriteFile(p, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, present, err := responsefile.Read(p, 100)
	if !present || !errors.Is(err, handoff.ErrResponseFile) || !strings.Contains(err.Error(), "100-byte limit") {
		t.Fatalf("want present and ErrResponseFile naming the limit, got %v, %v", present, err)
	}
	if b, _ := os.ReadFile(p); string(b) != big {
		t.Errorf("the oversized file was changed")
	}
	if c, _, err := responsefile.Read(p, 101); err != nil || c != big {
		t.Errorf("a file of exactly the limit must be read: %v", err)
	}
}

func TestUnreadableResponseFileIsRefusedAndLeftInPlace(t *testing.T) {
	type setup func(t *testing.T, p string)
	cases := map[string]setup{
		"a directory in its place": func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		},
		"a FIFO in its place": func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		},
	}
	// Permission bits do not stop root (CI runs as root); there the two
	// cases above stand for "unreadable".
	if os.Geteuid() != 0 {
		cases["no read permission"] = func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("answer"), 0o000); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			p := testkit.ResponseFile(t, work, "analyst")
			mk(t, p)
			if _, _, err := responsefile.Read(p, 1<<20); !errors.Is(err, handoff.ErrResponseFile) {
				t.Fatalf("want ErrResponseFile, got %v", err)
			}
			if _, err := os.Lstat(p); err != nil {
				t.Errorf("the file was not left in place: %v", err)
			}
			assertWaitStopsOnUnusableFile(t, work)
		})
	}
}

// assertWaitStopsOnUnusableFile runs a wait whose agent is quiet from the
// start over the unusable response file already in place: the first poll
// reads it and the wait ends with ErrResponseFile, file untouched.
func assertWaitStopsOnUnusableFile(t *testing.T, work string) {
	t.Helper()
	clk := vclock.New(time.Unix(1000, 0))
	p, _ := handoff.ResponsePath(work, "analyst")
	before, _ := os.Lstat(p)
	res, err := fsm.Wait(context.Background(), fixedTerminal(handoff.StatusIdle), fsm.Options{
		Role: "analyst", Workdir: work, Clock: clk, Config: smallLimit(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if !errors.Is(err, handoff.ErrResponseFile) {
		t.Fatalf("Wait: want ErrResponseFile, got %v (%+v)", err, res)
	}
	if res.Elapsed != 0 {
		t.Errorf("Wait went on for %v instead of stopping at the first poll", res.Elapsed)
	}
	after, aerr := os.Lstat(p)
	if aerr != nil || after.Mode() != before.Mode() {
		t.Errorf("the unusable file was moved or changed (%v)", aerr)
	}
}

func smallLimit() handoff.Config {
	c := handoff.DefaultConfig()
	c.MaxResponseBytes = 100
	return c
}

type fixedTerminal handoff.Status

func (f fixedTerminal) Status(context.Context) (handoff.Status, error) { return handoff.Status(f), nil }
func (f fixedTerminal) LastOutput(context.Context) (string, error)     { return "", nil }

// With each no-replace move that can run here (the system's own and the
// fallbacks other systems use), see responsefile.Renamers.
func TestArchiveNumbersFilesInOrderAndNeverOverwrites(t *testing.T) {
	for _, r := range responsefile.Renamers {
		t.Run(r, func(t *testing.T) { archiveNumbersFilesInOrder(t, r) })
	}
}

func archiveNumbersFilesInOrder(t *testing.T, renamer string) {
	work := t.TempDir()
	a := responsefile.UseRenamer(responsefile.NewArchive(work, time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)), renamer)
	if !strings.HasPrefix(a.Dir(), filepath.Join(work, ".tmp")+string(filepath.Separator)) {
		t.Errorf("archive dir %s is not under <workdir>/.tmp", a.Dir())
	}
	// Another run in the same millisecond already took number 002.
	if err := os.MkdirAll(a.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Dir(), "002-tester.md"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := testkit.ResponseFile(t, work, "tester")
	var got []string
	for i, kind := range []string{responsefile.ArchiveStale, responsefile.ArchiveConsumed, responsefile.ArchiveEmpty, responsefile.ArchiveConsumed} {
		if err := os.WriteFile(p, []byte(fmt.Sprint("answer ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		dst, err := a.Store(p, "tester", kind)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(dst); string(b) != fmt.Sprint("answer ", i) {
			t.Errorf("%s holds %q", dst, b)
		}
		got = append(got, filepath.Base(dst))
	}
	want := []string{"001-tester.stale.md", "003-tester.md", "004-tester.empty.md", "005-tester.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("archived as %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(a.Dir(), "002-tester.md")); string(b) != "theirs" {
		t.Errorf("another run's archived file was overwritten")
	}
}

// A cancelled dispatch's file is archived as cancelled, never deleted; a
// slot another dispatch holds now is left to it (it archives the file as
// stale before it sends).
func TestAbandonArchivesWhatACancelledDispatchLeft(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	a := responsefile.NewArchive(work, time.Now())
	if archived, err := responsefile.Abandon(context.Background(), p, "analyst", work, a); err != nil || archived != "" {
		t.Fatalf("Abandon with no file = %q, %v; want \"\", nil", archived, err)
	}
	if err := os.WriteFile(p, []byte("half an answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := responsefile.Lock(context.Background(), p, "analyst", work, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := responsefile.Abandon(context.Background(), p, "analyst", work, a); !errors.Is(err, responsefile.ErrSlotBusy) {
		t.Errorf("Abandon on a held slot: %v, want ErrSlotBusy", err)
	}
	if _, err := os.Lstat(p); err != nil {
		t.Errorf("the file went while another dispatch held the slot: %v", err)
	}
	held.Release()
	archived, err := responsefile.Abandon(context.Background(), p, "analyst", work, a)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(a.Dir(), "001-analyst.cancelled.md"); archived != want {
		t.Errorf("archived to %s, want %s", archived, want)
	}
	if b, err := os.ReadFile(archived); err != nil || string(b) != "half an answer" {
		t.Errorf("archived copy holds %q (%v)", b, err)
	}
}
