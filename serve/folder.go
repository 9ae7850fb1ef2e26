package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"golang.org/x/sys/unix"
)

// ErrLocked is returned by New when another service runs on the state
// folder.
var ErrLocked = errors.New("another handoff-fsm serve runs on this state folder")

// folder is a service's state folder: a state file per dispatch in
// dispatches/ (<id>.json), and serve.lock, which keeps a second service
// off them. The state files are the dispatches and their history.
type folder struct {
	root string // the state folder
	dir  string // <root>/dispatches
}

func stateFolder(root string) folder {
	return folder{root: root, dir: filepath.Join(root, "dispatches")}
}

// path is the state file of dispatch id.
// StatePath is where a service on the state folder stateDir keeps
// dispatch id (its state file, a dispatchstate.State).
func StatePath(stateDir, id string) string { return stateFolder(stateDir).path(id) }

func (f folder) path(id string) string { return filepath.Join(f.dir, id+".json") }

// spareOf is the spare of the state file at path (dispatchstate.State.Rewrite):
// .<id>.json.spare beside it, which scan passes over.
func spareOf(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".spare")
}

// remove removes dispatch id's state file, and its spare if one was left.
func (f folder) remove(id string) error {
	if err := os.Remove(spareOf(f.path(id))); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.Remove(f.path(id))
}

// open makes the folder if needed and takes its lock (ErrLocked when
// another service holds it); closing the file releases it.
func (f folder) open() (*os.File, error) {
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return nil, fmt.Errorf("serve: state folder: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(f.root, "serve.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if err := lockFolder(lock); err != nil {
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, f.root)
		}
		return nil, fmt.Errorf("serve: lock %s: %w", f.root, err)
	}
	return lock, nil
}

// lockFolder takes the state folder's lock. A lock just released can stay
// held for a moment by a child process between fork and exec (it shares the
// open file until exec closes it), so a busy lock is tried again for a
// second before it counts as another service's.
func lockFolder(f *os.File) error {
	deadline := time.Now().Add(time.Second)
	for {
		err := lockOnce(f)
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockOnce tries the state folder's lock once.
func lockOnce(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// stateFile is one state file of the folder: the dispatch's id (its name),
// and its state or why it cannot be read.
type stateFile struct {
	id, path string
	st       *dispatchstate.State
	err      error
}

// scan reads every state file of the folder (the temporary files of a
// write under way are not state files).
func (f folder) scan() ([]stateFile, error) {
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, err
	}
	var files []stateFile
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		sf := stateFile{id: strings.TrimSuffix(name, ".json"), path: filepath.Join(f.dir, name)}
		sf.st, sf.err = dispatchstate.Read(sf.path)
		files = append(files, sf)
	}
	return files, nil
}
