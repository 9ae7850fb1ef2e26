package fsm

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// WakeSources say where a dispatch's wake-ups come from; Open turns them
// into the Wakeups of its Options. Every caller that dispatches (the
// command, the service, the loop) wires them through here, so the eight
// fields of Wakeups are set in one place.
type WakeSources struct {
	// Workdir and Path are the response file to watch (Hints when it is
	// written, Turns when Codex's notify marker beside it is). Path ""
	// watches nothing.
	Workdir, Path string
	// Watches, when set, is the shared watch the response file is watched
	// on (a service's waits share one inotify instance); nil: one of its
	// own.
	Watches *responsefile.Watches
	// HookMarker, when set, is the marker file an agent's Stop hook writes
	// (Claude Code: `handoff-fsm hook --dir DIR`, hookmark.Path): Turns
	// comes from it instead, and it is the wait's TurnMarker.
	HookMarker string
	// Output is the terminal's output signal (a tmux control client's
	// hints), nil for none.
	Output <-chan struct{}
	// CheapLooks says a look costs next to nothing (a control client: no
	// process per look), so the wait looks again CheapHintPoll after a hint.
	CheapLooks bool
}

// CheapHintPoll is the HintPoll of WakeSources.CheapLooks.
const CheapHintPoll = 10 * time.Millisecond

// Open starts the watches and returns the Wakeups and the function that
// ends them (never nil). A watch that cannot start is left out — the wait
// then polls without it — and said in the error, which names the folder;
// the Wakeups that did start are returned with it.
func (s WakeSources) Open() (Wakeups, func(), error) {
	var w Wakeups
	var stops []func()
	stop := func() {
		for _, f := range stops {
			f()
		}
	}
	var errs []error
	if s.Path != "" {
		if rw, err := watch(s.Watches, s.Workdir, s.Path); err != nil {
			errs = append(errs, fmt.Errorf("cannot watch the response file: %w", err))
		} else {
			w.Hints, w.Turns = rw.C(), rw.Turns()
			stops = append(stops, func() { _ = rw.Close() })
		}
	}
	if s.HookMarker != "" {
		dir := filepath.Dir(s.HookMarker)
		hw, err := func() (*responsefile.Watcher, error) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			return responsefile.Watch(s.HookMarker)
		}()
		if err != nil {
			errs = append(errs, fmt.Errorf("cannot watch the hook folder %s: %w", dir, err))
		} else {
			w.Turns, w.TurnMarker = hw.C(), s.HookMarker
			stops = append(stops, func() { _ = hw.Close() })
		}
	}
	w.Output = s.Output
	if s.Output != nil && s.CheapLooks {
		w.HintPoll = CheapHintPoll
	}
	return w, stop, errors.Join(errs...)
}

// watch watches the response file at path under workdir, making its folder
// first; on ws when it is set.
func watch(ws *responsefile.Watches, workdir, path string) (*responsefile.Watcher, error) {
	if err := responsefile.EnsureDir(workdir); err != nil {
		return nil, err
	}
	if ws != nil {
		return ws.Watch(path)
	}
	return responsefile.Watch(path)
}
