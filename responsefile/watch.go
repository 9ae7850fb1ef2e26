package responsefile

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Watcher reports changes at one response file's path as hints for a wait
// (fsm.Options.Hints). It watches the folder, not the file: the file comes
// and goes (written, consumed, archived), and a watch on it would die with
// it. Events are only hints — the wait always looks again before deciding —
// so a missed or extra one costs at most a poll, never a wrong answer.
type Watcher struct {
	w    *fsnotify.Watcher
	c    chan struct{}
	turn chan struct{}
	errs chan error
	once sync.Once
	done chan struct{}
}

// Watch starts watching the response file at path; its folder must exist
// (EnsureDir) and is not watched through a symlink (*FolderLinkError).
// Linux watches with inotify, macOS and the BSDs with kqueue (fsnotify).
// Close it when the wait is over.
func Watch(path string) (*Watcher, error) {
	d, _, err := openFolderOf(path)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", filepath.Dir(path), err)
	}
	d.Close()
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch response files: %w", err)
	}
	dir, name := filepath.Split(path)
	if err := fw.Add(filepath.Clean(dir)); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	w := &Watcher{w: fw, c: make(chan struct{}, 1), turn: make(chan struct{}, 1), errs: make(chan error, 1), done: make(chan struct{})}
	go w.run(name, filepath.Base(TurnMarker(path)))
	return w, nil
}

// C delivers a value when the file was created, written or moved into
// place since the last receive (hints are coalesced: a burst of writes is
// one value). It is closed when the watcher stops.
func (w *Watcher) C() <-chan struct{} { return w.c }

// Turns delivers a value when a hook marked the agent's turn complete
// (MarkTurnComplete) since the last receive. It is closed when the watcher
// stops.
func (w *Watcher) Turns() <-chan struct{} { return w.turn }

// Err delivers the error that stopped the watcher early, if any.
func (w *Watcher) Err() <-chan error { return w.errs }

func (w *Watcher) run(name, marker string) {
	defer close(w.c)
	defer close(w.turn)
	// Created (by a write or a move into place) or written; a rename away or
	// a removal is the wait itself consuming the file.
	const changed = fsnotify.Create | fsnotify.Write
	for {
		select {
		case <-w.done:
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if ev.Op&changed == 0 {
				continue
			}
			var to chan struct{}
			switch filepath.Base(ev.Name) {
			case name:
				to = w.c
			case marker:
				to = w.turn
			default:
				continue
			}
			select {
			case to <- struct{}{}:
			default: // one is already pending
			}
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			select {
			case w.errs <- err:
			default:
			}
		}
	}
}

// Close stops the watcher and releases its inotify or kqueue instance.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		close(w.done)
		err = w.w.Close()
	})
	return err
}
