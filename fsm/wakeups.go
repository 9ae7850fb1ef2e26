package fsm

import "github.com/handoff-fsm/handoff-fsm/responsefile"

// WatchResponse watches the response file at path under workdir (making
// its folder first) and returns the Wakeups that watch gives a wait (Hints
// when the file is written, Turns when a Codex notify marker is) and the
// function that ends the watch. A folder that cannot be watched is an
// error; the wait then polls as without wakeups.
func WatchResponse(workdir, path string) (Wakeups, func(), error) {
	if err := responsefile.EnsureDir(workdir); err != nil {
		return Wakeups{}, nil, err
	}
	w, err := responsefile.Watch(path)
	if err != nil {
		return Wakeups{}, nil, err
	}
	return Wakeups{Hints: w.C(), Turns: w.Turns()}, func() { _ = w.Close() }, nil
}
