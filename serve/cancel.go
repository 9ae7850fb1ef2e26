package serve

import (
	"context"
	"errors"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Cancel stops dispatch id and records it as cancelled; what the agent
// wrote is archived. It returns once the dispatch is over (an error
// wrapping ErrNotFound: no such dispatch). A finished dispatch is left as
// it was.
func (s *Service) Cancel(ctx context.Context, id string) (View, error) {
	d, ok := s.lookup(id)
	if !ok {
		return View{}, errNoDispatch(id)
	}
	d.mu.Lock()
	if d.st.Finished == nil {
		d.cancelled = true
		if d.cancel != nil {
			d.cancel()
		}
	}
	d.mu.Unlock()
	select {
	case <-d.done:
	case <-ctx.Done():
	}
	return d.fullView(), nil
}

// cancelled is the ending of a cancelled dispatch: whatever the agent left
// at the response path is archived by responsefile.Abandon (never deleted,
// never taken for the next dispatch's answer).
func (s *Service) cancelled(d *dispatch, res fsm.Result) *dispatchstate.Finished {
	st := d.snapshot()
	f := &dispatchstate.Finished{Exit: dispatchstate.ExitOther, Ended: time.Now().UTC(), Error: "cancelled"}
	f.Report = reportOf(res)
	f.Report.Outcome = dispatchstate.OutcomeCancelled
	path, err := st.Roles().Path(st.Workdir, st.Role)
	if err != nil || st.SendStarted.IsZero() && st.Wait == nil {
		return f // never sent: nothing at the path is this dispatch's
	}
	archive := responsefile.NewArchive(st.Workdir, time.Now())
	if st.Wait != nil {
		archive = responsefile.OpenArchive(st.Wait.ArchiveDir, st.Wait.ArchiveSeq)
	}
	archived, err := responsefile.Abandon(context.Background(), path, st.Role, st.Workdir, archive)
	switch {
	case err == nil:
		f.ArchivedPath = archived
	case errors.Is(err, responsefile.ErrSlotBusy):
		// A dispatch that took the slot since archives it (as stale).
	default:
		s.log.Warn("cancelled: the response file could not be archived; it is left in place", "id", st.ID, "error", err)
	}
	return f
}
