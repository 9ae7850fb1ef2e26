package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DefaultKeep is how long a finished dispatch stays in the history (the
// state folder) before it is pruned: what the agent wrote stays in its
// archive in the work folder whatever happens to the record.
const DefaultKeep = 30 * 24 * time.Hour

// pruneInterval is how often a running service prunes its history.
const pruneInterval = time.Hour

// prunable lists the dispatches of the folder whose dispatch finished
// before cutoff. A file that cannot be read is left alone: it is not known
// to be finished.
func (f folder) prunable(cutoff time.Time) ([]string, error) {
	files, err := f.scan()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, sf := range files {
		if sf.err != nil || sf.st.Finished == nil || sf.st.Finished.Ended.IsZero() || !sf.st.Finished.Ended.Before(cutoff) {
			continue
		}
		ids = append(ids, sf.id)
	}
	return ids, nil
}

// prune drops the finished dispatches older than keep from the history,
// on disk and in memory; keep 0 keeps them all.
func (s *Service) prune(now time.Time) {
	if s.o.Keep <= 0 {
		return
	}
	ids, err := s.folder.prunable(now.Add(-s.o.Keep))
	if err != nil {
		s.log.Error("pruning the history", "error", err)
		return
	}
	for _, id := range ids {
		if err := s.folder.remove(id); err != nil {
			s.log.Error("pruning the history", "id", id, "error", err)
			continue
		}
		s.mu.Lock()
		delete(s.all, id)
		s.mu.Unlock()
	}
	if len(ids) > 0 {
		s.log.Info("pruned the history", "dispatches", len(ids), "older_than", s.o.Keep.String())
	}
}

// pruneLoop prunes once an hour until the service stops.
func (s *Service) pruneLoop() {
	defer s.wg.Done()
	t := time.NewTicker(pruneInterval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-t.C:
			s.prune(now)
		}
	}
}

// PruneFolder prunes a state folder no service runs on (its lock is free):
// the finished dispatches older than keep are removed, and a folder left
// without any dispatch is removed whole. It reports how many dispatches
// it removed and whether the folder went; a folder a service holds is
// ErrLocked and left as it is. What `mcp` runs on the folders of earlier
// runs, one per run.
func PruneFolder(stateDir string, keep time.Duration, now time.Time) (removed int, gone bool, err error) {
	lock, err := os.OpenFile(filepath.Join(stateDir, "serve.lock"), os.O_RDWR, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, false, err
	}
	if lock != nil {
		defer lock.Close()
		if err := lockOnce(lock); err != nil {
			return 0, false, fmt.Errorf("%w (%s)", ErrLocked, stateDir)
		}
	}
	folder := stateFolder(stateDir)
	ids, err := folder.prunable(now.Add(-keep))
	if errors.Is(err, os.ErrNotExist) {
		ids, err = nil, nil
	}
	if err != nil {
		return 0, false, err
	}
	for _, id := range ids {
		if err := folder.remove(id); err != nil {
			return removed, false, err
		}
		removed++
	}
	left, err := os.ReadDir(folder.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return removed, false, err
	}
	if len(left) > 0 {
		return removed, false, nil
	}
	return removed, true, os.RemoveAll(stateDir)
}
