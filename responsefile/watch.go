package responsefile

import (
	"errors"
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
	ws           *Watches
	own          bool // ws is this watcher's alone: closed with it
	dir          string
	name, marker string
	c            chan struct{}
	turn         chan struct{}
	errs         chan error
	once         sync.Once
	stopped      bool // c and turn are closed (under ws.mu)
}

// Watches is one inotify or kqueue instance serving many Watchers: a
// service waiting on hundreds of response files at once would otherwise
// hold an instance per wait, and Linux allows a user 128
// (fs.inotify.max_user_instances), for all of that user's processes.
type Watches struct {
	fw     *fsnotify.Watcher
	mu     sync.Mutex
	subs   map[string]map[*Watcher]bool // a watched folder → its watchers
	closed bool
}

// NewWatches starts a shared watch; Close it when no wait needs it.
func NewWatches() (*Watches, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch response files: %w", err)
	}
	ws := &Watches{fw: fw, subs: map[string]map[*Watcher]bool{}}
	go ws.run()
	return ws, nil
}

// Watch starts watching the response file at path with an instance of its
// own; its folder must exist (EnsureDir) and is not watched through a
// symlink (*FolderLinkError). Linux watches with inotify, macOS and the
// BSDs with kqueue (fsnotify). Close it when the wait is over.
func Watch(path string) (*Watcher, error) {
	if err := checkWatchedFolder(path); err != nil {
		return nil, err
	}
	ws, err := NewWatches()
	if err != nil {
		return nil, err
	}
	w, err := ws.Watch(path)
	if err != nil {
		ws.Close()
		return nil, err
	}
	w.own = true
	return w, nil
}

// Watch starts watching the response file at path on the shared instance,
// as the function Watch does on one of its own.
func (ws *Watches) Watch(path string) (*Watcher, error) {
	if err := checkWatchedFolder(path); err != nil {
		return nil, err
	}
	dir, name := filepath.Split(path)
	dir = filepath.Clean(dir)
	w := &Watcher{ws: ws, dir: dir, name: name, marker: filepath.Base(TurnMarker(path)),
		c: make(chan struct{}, 1), turn: make(chan struct{}, 1), errs: make(chan error, 1)}
	ws.mu.Lock()
	if ws.closed {
		ws.mu.Unlock()
		return nil, errors.New("watch response files: the shared watch is closed")
	}
	if ws.subs[dir] == nil {
		ws.subs[dir] = map[*Watcher]bool{}
	}
	ws.subs[dir][w] = true
	ws.mu.Unlock()
	// Added after the watcher is in the table, and outside the lock (the
	// watch's reader may need it to hand over an event): adding a folder
	// twice is one watch, and a folder deleted and made again is watched
	// again.
	if err := ws.fw.Add(dir); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	return w, nil
}

// checkWatchedFolder refuses a response folder that is missing or reached
// through a symlink.
func checkWatchedFolder(path string) error {
	d, _, err := openFolderOf(path)
	if err != nil {
		return fmt.Errorf("watch %s: %w", filepath.Dir(path), err)
	}
	return d.Close()
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

// run hands each event to the watchers of its folder.
func (ws *Watches) run() {
	// Created (by a write or a move into place) or written; a rename away or
	// a removal is the wait itself consuming the file.
	const changed = fsnotify.Create | fsnotify.Write
	for {
		select {
		case ev, ok := <-ws.fw.Events:
			if !ok {
				ws.stopAll()
				return
			}
			if ev.Op&changed == 0 {
				continue
			}
			dir, base := filepath.Split(ev.Name)
			ws.mu.Lock()
			for w := range ws.subs[filepath.Clean(dir)] {
				switch base {
				case w.name:
					hint(w.c)
				case w.marker:
					hint(w.turn)
				}
			}
			ws.mu.Unlock()
		case err, ok := <-ws.fw.Errors:
			if !ok {
				ws.stopAll()
				return
			}
			ws.mu.Lock()
			for _, subs := range ws.subs {
				for w := range subs {
					select {
					case w.errs <- err:
					default:
					}
				}
			}
			ws.mu.Unlock()
		}
	}
}

// hint sends a value unless one is already pending.
func hint(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// stop closes w's channels; ws.mu is held.
func (w *Watcher) stop() {
	if !w.stopped {
		w.stopped = true
		close(w.c)
		close(w.turn)
	}
}

// stopAll stops every watcher: the instance is closed.
func (ws *Watches) stopAll() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.closed = true
	for _, subs := range ws.subs {
		for w := range subs {
			w.stop()
		}
	}
	ws.subs = map[string]map[*Watcher]bool{}
}

// Close stops every watcher of the shared watch and releases its inotify
// or kqueue instance.
func (ws *Watches) Close() error {
	ws.stopAll()
	return ws.fw.Close()
}

// Close stops the watcher; its folder is no longer watched once no other
// watcher of the shared watch is in it, and a watcher started by Watch
// releases its inotify or kqueue instance.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		ws := w.ws
		ws.mu.Lock()
		last := false
		if subs := ws.subs[w.dir]; subs[w] {
			delete(subs, w)
			if last = len(subs) == 0; last {
				delete(ws.subs, w.dir)
			}
		}
		w.stop()
		ws.mu.Unlock()
		if last && !w.own {
			// The folder's last watcher: unwatch it, outside the lock; a
			// watcher that came into it meanwhile gets it back.
			_ = ws.fw.Remove(w.dir) // gone with its folder, maybe
			ws.mu.Lock()
			again := len(ws.subs[w.dir]) > 0 && !ws.closed
			ws.mu.Unlock()
			if again {
				_ = ws.fw.Add(w.dir)
			}
		}
		if w.own {
			err = ws.Close()
		}
	})
	return err
}
