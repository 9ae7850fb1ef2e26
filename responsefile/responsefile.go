// Package responsefile is the one way a response file is touched: read (no
// symlink followed, no FIFO opened, a size cap), consumed (moved into the
// run's archive before its content is returned), and set aside when stale.
// The engine, the recorder and resume all go through it, so the guarantees
// hold for every reader: nothing the agent wrote is lost, nothing outside
// the response folder is let in, and nothing outside the work folder is
// touched (the folders below it are opened without following a symlink,
// see FolderLinkError).
package responsefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// EnsureDir creates the response folder under workdir, parents included, if
// it is missing. A symlink at .tmp or at the response folder is refused with
// a *FolderLinkError naming it: nothing outside the work folder is used.
func EnsureDir(workdir string) error {
	root, rel := beneath(handoff.ResponseDir(workdir))
	d, err := openFolder(root, rel, true)
	if err != nil {
		return fmt.Errorf("create response dir: %w", err)
	}
	return d.Close()
}

// Present reports whether anything (a file, a link, a FIFO, …) is at path.
// It opens nothing there: it is the cheap look the driver takes on every
// poll. A symlinked folder on the way is an error (*FolderLinkError).
func Present(path string) (bool, error) {
	d, name, err := openFolderOf(path)
	if notExist(err) {
		return false, nil
	}
	if err != nil {
		return false, wrapUnusable(path, err)
	}
	defer d.Close()
	_, ok, err := d.lstat(name)
	if err != nil {
		return false, wrapUnusable(path, err)
	}
	return ok, nil
}

// Read returns the content of the response file at path without taking it
// away. present is false, with no error, when there is no file. A symlink, a
// non-regular file, a file larger than max bytes or an unreadable one is an
// error wrapping handoff.ErrResponseFile, and the file is left untouched.
func Read(path string, max int64) (content string, present bool, err error) {
	f, present, err := open(path, max)
	if f == nil {
		return "", present, err
	}
	defer f.Close()
	content, err = readAll(f, path, max)
	return content, true, err
}

// open opens path for reading without following a link and without
// blocking on a FIFO, then checks the opened file itself (so nothing can be
// swapped in between): a regular file of at most max bytes. f is nil when
// there is no usable file; present says whether anything was there.
func open(path string, max int64) (f *os.File, present bool, err error) {
	d, name, err := openFolderOf(path)
	if notExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, wrapUnusable(path, err)
	}
	defer d.Close()
	f, err = d.open(name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	switch {
	case notExist(err):
		return nil, false, nil
	case err != nil:
		// A symlink: ELOOP on Linux and macOS, EMLINK on FreeBSD.
		if st, ok, _ := d.lstat(name); ok && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return nil, true, unusable(Symlink, path, "it is a symlink; refusing to follow it (remove it or replace it with a regular file)")
		}
		return nil, true, unusable(Unreadable, path, err.Error())
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(path, fi)
	}
	if err == nil && fi.Size() > max {
		err = unusable(Oversized, path, fmt.Sprintf("%d bytes is over the %d-byte limit; it was left in place", fi.Size(), max))
	}
	if err != nil {
		f.Close()
		return nil, true, wrapUnusable(path, err)
	}
	return f, true, nil
}

func wrapUnusable(path string, err error) error {
	if errors.Is(err, handoff.ErrResponseFile) {
		return err
	}
	return unusable(Unreadable, path, err.Error())
}

// readAll reads f from its start, one byte past the limit: the file may have
// grown since it was checked.
func readAll(f *os.File, path string, max int64) (string, error) {
	b, err := io.ReadAll(io.LimitReader(io.NewSectionReader(f, 0, max+1), max+1))
	if err != nil {
		return "", unusable(Unreadable, path, err.Error())
	}
	if int64(len(b)) > max {
		return "", unusable(Oversized, path, fmt.Sprintf("over the %d-byte limit", max))
	}
	return string(b), nil
}

func checkRegular(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return unusable(Symlink, path, "it is a symlink; refusing to follow it (remove it or replace it with a regular file)")
	case !fi.Mode().IsRegular():
		return unusable(NotRegular, path, fmt.Sprintf("not a regular file (%v)", fi.Mode().Type()))
	}
	return nil
}

// Problem says why the thing at a response path cannot be used as an
// answer. A recorded trace names it, so a replay can put the same kind of
// thing in place and end the same way.
type Problem string

// The problems.
const (
	Symlink    Problem = "symlink"     // a symbolic link (never followed)
	NotRegular Problem = "not_regular" // a FIFO, a folder, a device, a socket
	Oversized  Problem = "oversized"   // over Config.MaxResponseBytes
	Unreadable Problem = "unreadable"  // it could not be opened or read
	Gone       Problem = "gone"        // it disappeared while being taken
)

// Problems lists every Problem.
func Problems() []Problem { return []Problem{Symlink, NotRegular, Oversized, Unreadable, Gone} }

// UnusableError is the error for a thing at a response path that cannot be
// used as an answer. It matches handoff.ErrResponseFile (errors.Is).
type UnusableError struct {
	Path    string
	Problem Problem
	// Reason says what was wrong and what to do, for a person.
	Reason string
}

func (e *UnusableError) Error() string {
	return fmt.Sprintf("%v %s: %s", handoff.ErrResponseFile, e.Path, e.Reason)
}

// Unwrap makes the error match handoff.ErrResponseFile.
func (e *UnusableError) Unwrap() error { return handoff.ErrResponseFile }

func unusable(p Problem, path, reason string) error {
	return &UnusableError{Path: path, Problem: p, Reason: reason}
}

// ProblemOf returns the problem err names; "" when err is not an
// UnusableError. A symlinked folder on the way (*FolderLinkError) is a
// Symlink: it is refused as a linked response file is.
func ProblemOf(err error) Problem {
	var u *UnusableError
	if errors.As(err, &u) {
		return u.Problem
	}
	var l *FolderLinkError
	if errors.As(err, &l) {
		return Symlink
	}
	return ""
}

// Consumed is a response file taken away by Consume.
type Consumed struct {
	// Content is the file's text, byte for byte what the archived file holds.
	Content string
	// Answer is Content without its receipt line (handoff.SplitReceipt):
	// the response to return. It is Content when the file has none.
	Answer string
	// Receipt is the receipt the file's first line carried; "" for none.
	Receipt handoff.Receipt
	// Blank: the answer is nothing but white space (handoff.Blank); it was
	// archived as such and counts as no answer.
	Blank bool
	// Mismatched: the file carries a receipt that is not the one the
	// dispatch expects: an answer to another prompt. It was archived as
	// such and is not this dispatch's answer.
	Mismatched bool
	// Archived is where the file now is.
	Archived string
}

// kind is the archive kind the content's classification names.
func (c Consumed) kind() string {
	switch {
	case c.Mismatched:
		return ArchiveMismatch
	case c.Blank:
		return ArchiveEmpty
	}
	return ArchiveConsumed
}

// classify reads the receipt off content and says what it is for a
// dispatch expecting want ("" takes any receipt, or none). A file without a
// receipt line is taken as the answer: an agent or a person that does not
// copy the instruction's command exactly still gets through (the stale file
// of an earlier dispatch is archived before each prompt is sent).
func classify(content string, want handoff.Receipt) Consumed {
	answer, got, found := handoff.SplitReceipt(content)
	c := Consumed{Content: content, Answer: answer, Receipt: got}
	switch {
	case found && want != "" && !want.Matches(got):
		c.Mismatched = true
	case handoff.Blank(answer):
		c.Blank = true
	}
	return c
}

// Consume takes the response file at path away for good. It opens it as Read
// does (an unusable file is an error and stays in place), moves it into the
// archive — as NNN-role.md; NNN-role.empty.md when its answer is blank
// (a file of no bytes is left in place: its writer may not be done);
// NNN-role.mismatch.md when it carries a receipt other than want (want ""
// accepts any) — makes the move durable, and only then returns the
// content, read from the moved file. So a process killed at any point
// leaves the response either at path or in the archive, never nowhere and
// never half.
func Consume(path, role string, max int64, want handoff.Receipt, a *Archive) (Consumed, error) {
	f, present, err := open(path, max)
	if f == nil {
		if err == nil && !present {
			err = unusable(Gone, path, "the file is gone")
		}
		return Consumed{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		// A file of no bytes is a write under way (a shell's > truncates
		// before the command writes): moved now, what the agent writes
		// next would go into the archive, and its answer be lost. It stays
		// where it is and counts as no file.
		return Consumed{Blank: true}, nil
	}
	failpoint("consume: opened")
	archived, err := a.Store(path, role, ArchiveConsumed)
	if err != nil {
		return Consumed{}, err
	}
	// The open file follows the rename: this reads exactly what is archived.
	content, err := readAll(f, archived, max)
	if err != nil {
		return Consumed{}, fmt.Errorf("%w (the file is kept in the archive as %s)", err, archived)
	}
	failpoint("consume: read")
	c := classify(content, want)
	c.Archived = archived
	if k := c.kind(); k != ArchiveConsumed {
		// Named for what it is; a failure leaves it archived all the same.
		if renamed, err := a.rename(archived, role, k); err == nil {
			c.Archived = renamed
		}
		failpoint("consume: blank renamed")
	}
	return c, nil
}

// Recover completes a Consume that a crash may have cut short, for a wait
// resumed in another process. a must be the run's archive opened at the
// number it had before that Consume began (OpenArchive). If the response
// was already moved, it is the first one of role archived after that
// number, and Recover returns its content as Consume would have (a blank
// one is named .empty, a mismatched one .mismatch, as Consume names them);
// otherwise the file is still at path and is consumed now. Either way the
// content is byte for byte the archived file's. Neither at path nor in the
// archive is an error wrapping handoff.ErrResponseFile.
func Recover(path, role string, max int64, want handoff.Receipt, a *Archive) (Consumed, error) {
	archived, kind, ok, err := a.findConsumed(role)
	if err != nil {
		return Consumed{}, err
	}
	if !ok {
		return Consume(path, role, max, want, a)
	}
	f, _, err := open(archived, max)
	if f == nil {
		if err == nil {
			err = unusable(Gone, archived, "the archived response is gone")
		}
		return Consumed{}, err
	}
	defer f.Close()
	content, err := readAll(f, archived, max)
	if err != nil {
		return Consumed{}, err
	}
	// Killed between the two steps of a link-and-unlink move (linkRename),
	// the response is still also at path, as a second name of the archived
	// file: drop that name, so it is in one place.
	dropSecondName(path, f)
	c := classify(content, want)
	c.Archived = archived
	if k := c.kind(); k != kind && k != ArchiveConsumed {
		if renamed, err := a.rename(archived, role, k); err == nil {
			c.Archived = renamed
		}
	}
	return c, nil
}

// ClearStale archives a response file left from an earlier dispatch of role
// so the next wait cannot mistake it for the new answer. No file is not an
// error; archived is "" then.
func ClearStale(path, role string, a *Archive) (archived string, err error) {
	d, name, err := openFolderOf(path)
	if notExist(err) {
		return "", nil
	}
	if err != nil {
		return "", wrapUnusable(path, err)
	}
	st, ok, err := d.lstat(name)
	d.Close()
	if err != nil {
		return "", wrapUnusable(path, err)
	}
	if !ok {
		return "", nil
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return "", fmt.Errorf("%w %s: a directory is in the response file's place", handoff.ErrResponseFile, path)
	}
	// A stale symlink is moved aside too (rename moves the link, not its
	// target), so the new answer can be written as a regular file.
	return a.Store(path, role, ArchiveStale)
}

// Abandon archives what a dispatch given up on (cancelled after its prompt
// was sent) left at the response path, so it is never taken for the next
// dispatch's answer and never deleted. It holds the slot's lock while it
// looks: a dispatch that took the slot since archives the file itself (as
// stale) before it sends, and Abandon then returns that slot's
// *SlotBusyError. Nothing at the path is not an error; archived is "" then.
func Abandon(ctx context.Context, path, role, workdir string, a *Archive) (archived string, err error) {
	if err := EnsureDir(workdir); err != nil {
		return "", err
	}
	slot, err := Lock(ctx, path, role, workdir, false)
	if err != nil {
		return "", err
	}
	defer slot.Release()
	present, err := Present(path)
	if err != nil || !present {
		return "", err
	}
	return a.Store(path, role, ArchiveCancelled)
}

// TurnMarker is the path of the marker a completion hook (Codex's notify
// program, Claude Code's Stop hook) writes when the agent's turn for the
// response file at path is complete: a hidden file beside it.
func TurnMarker(path string) string {
	dir, name := filepath.Split(path)
	return filepath.Join(dir, "."+name+".turn-complete")
}

// MarkTurnComplete writes the turn marker for the response file at path
// (atomically: a temporary file renamed into place), holding what the hook
// received, for a person debugging it.
func MarkTurnComplete(path string, payload []byte) error {
	d, _, err := openFolderOf(path)
	if err != nil {
		return fmt.Errorf("mark the turn complete: %w", err)
	}
	defer d.Close()
	marker := filepath.Base(TurnMarker(path))
	var tmp *os.File
	var tmpName string
	for range 100 {
		tmpName = fmt.Sprintf(".turn-%d", rand.Uint32())
		tmp, err = d.open(tmpName, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("mark the turn complete: %w", err)
	}
	_, werr := tmp.Write(payload)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		d.remove(tmpName)
		return fmt.Errorf("mark the turn complete: %w", err)
	}
	if err := unix.Renameat(d.fd(), tmpName, d.fd(), marker); err != nil {
		d.remove(tmpName)
		return fmt.Errorf("mark the turn complete: rename %s: %w", d.join(marker), err)
	}
	return nil
}

// MarkerSince reports whether the marker file at path (a turn marker, or
// a hook's, e.g. hookmark's stopped.json) was written at or after t: a
// marker from an earlier turn does not count.
func MarkerSince(path string, t time.Time) bool {
	d, name, err := openFolderOf(path)
	if err != nil {
		return false
	}
	defer d.Close()
	st, ok, err := d.lstat(name)
	return err == nil && ok && st.Mode&unix.S_IFMT == unix.S_IFREG && !time.Unix(st.Mtim.Unix()).Before(t)
}

// ClearMarker removes the marker file at path, if any: it is a hook's note,
// not the agent's answer, so nothing is lost.
func ClearMarker(path string) error {
	d, name, err := openFolderOf(path)
	if notExist(err) {
		return nil
	}
	if err == nil {
		err = d.remove(name)
		d.Close()
	}
	if err != nil {
		return fmt.Errorf("clear the turn marker: %w", err)
	}
	return nil
}

// dropSecondName removes the name at path if it is another name of the
// open file f (see Recover); anything else at path is left alone.
func dropSecondName(path string, f *os.File) {
	d, name, err := openFolderOf(path)
	if err != nil {
		return
	}
	defer d.Close()
	at, ok, err := d.lstat(name)
	if err != nil || !ok {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) == nil && st.Dev == at.Dev && st.Ino == at.Ino {
		d.remove(name)
	}
}
