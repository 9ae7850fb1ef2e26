package serve

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Get returns the dispatch id; with wait > 0 it first waits up to that long
// (at most MaxWait, or until ctx ends) for the dispatch to be over. An id
// the service does not know is an error wrapping ErrNotFound.
func (s *Service) Get(ctx context.Context, id string, wait time.Duration) (View, error) {
	d, ok := s.lookup(id)
	if !ok {
		return View{}, errNoDispatch(id)
	}
	if wait > 0 {
		t := time.NewTimer(min(wait, MaxWait))
		defer t.Stop()
		select {
		case <-d.done:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return d.fullView(), nil
}

// lookup is the service's dispatch id.
func (s *Service) lookup(id string) (*dispatch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.all[id]
	return d, ok
}

// Filter selects dispatches for Dispatches; zero fields select all.
type Filter struct {
	Role  string
	State string // a state name, "running" or "final"
	Since time.Time
	Limit int // the newest Limit (0: all)
}

// Dispatches returns the dispatches Filter selects, oldest first, without
// their content and transitions.
func (s *Service) Dispatches(f Filter) []View {
	s.mu.Lock()
	ds := make([]*dispatch, 0, len(s.all))
	for _, d := range s.all {
		ds = append(ds, d)
	}
	s.mu.Unlock()
	views := make([]View, 0, len(ds))
	for _, d := range ds {
		views = append(views, d.view(false))
	}
	return f.apply(views)
}

// History reads the dispatches kept in a service's state folder, running
// or not (the state files are the history): who was asked what, when,
// how it ended and where the response is archived. Unreadable files are
// skipped; bad says how many.
func History(stateDir string, f Filter) (views []View, bad int, err error) {
	files, err := stateFolder(stateDir).scan()
	if err != nil {
		return nil, 0, err
	}
	for _, sf := range files {
		if sf.err != nil {
			bad++
			continue
		}
		views = append(views, newDispatch(sf.st, "").view(false))
	}
	return f.apply(views), bad, nil
}

// apply keeps the views f selects, oldest first.
func (f Filter) apply(views []View) []View {
	out := []View{}
	for _, v := range views {
		if f.matches(v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b View) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

func (f Filter) matches(v View) bool {
	switch {
	case f.Role != "" && v.Role != f.Role:
		return false
	case !f.Since.IsZero() && v.Created.Before(f.Since):
		return false
	case f.State == "":
		return true
	case f.State == "running":
		return !v.Final
	case f.State == "final":
		return v.Final
	}
	return strings.EqualFold(v.State, f.State)
}
