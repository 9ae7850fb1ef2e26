package serve

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// WaitMode says what a wait on several dispatches waits for.
type WaitMode string

const (
	// WaitAny returns once one of the dispatches is over: a coordinator
	// woken by the first of its workers to finish.
	WaitAny WaitMode = "any"
	// WaitAll returns once every one is over.
	WaitAll WaitMode = "all"
)

// MaxWaitIDs is how many dispatches one wait may name.
const MaxWaitIDs = 256

// Waited is the answer to a wait on several dispatches.
type Waited struct {
	// Ended are the dispatches that were over when the wait returned, in
	// the order they were named, each with its answer or error.
	Ended []View `json:"ended"`
	// Pending are the ids still running then (the wait's time ran out, or
	// the mode was any).
	Pending []string `json:"pending"`
}

// Satisfied reports whether w is what mode waited for.
func (w Waited) Satisfied(mode WaitMode) bool {
	if mode == WaitAll {
		return len(w.Pending) == 0
	}
	return len(w.Ended) > 0
}

// waitOnce waits up to wait (or until ctx ends) for one (WaitAny) or all
// (WaitAll) of the dispatches ids to be over, woken by each dispatch's own
// end, not by polling. An id the service does not know is an error
// wrapping ErrNotFound that names it; nothing is waited for then.
func (s *Service) waitOnce(ctx context.Context, ids []string, mode WaitMode, wait time.Duration) (Waited, error) {
	if mode != WaitAny && mode != WaitAll {
		return Waited{}, bad("mode", "%q: want any or all", mode)
	}
	if len(ids) == 0 || len(ids) > MaxWaitIDs {
		return Waited{}, bad("ids", "give 1 to %d dispatch ids (ids=a,b,c)", MaxWaitIDs)
	}
	ds := make([]*dispatch, len(ids))
	s.mu.Lock()
	for i, id := range ids {
		d, ok := s.all[id]
		if !ok {
			s.mu.Unlock()
			return Waited{}, errNoDispatch(id)
		}
		ds[i] = d
	}
	s.mu.Unlock()

	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ended := make(chan struct{}, len(ds))
	for _, d := range ds {
		go func() {
			select {
			case <-d.done:
				ended <- struct{}{}
			case <-wctx.Done():
			}
		}()
	}
	need := 1
	if mode == WaitAll {
		need = len(ds)
	}
	for n := 0; n < need; n++ {
		select {
		case <-ended:
		case <-wctx.Done():
			n = need
		}
	}
	var w Waited
	for i, d := range ds {
		select {
		case <-d.done:
			w.Ended = append(w.Ended, d.fullView())
		default:
			w.Pending = append(w.Pending, ids[i])
		}
	}
	if w.Ended == nil {
		w.Ended = []View{}
	}
	if w.Pending == nil {
		w.Pending = []string{}
	}
	return w, nil
}

// waitQuery reads GET /v1/wait's query: ids (comma-separated, or the
// parameter repeated), mode (any, the default, or all), wait (a duration,
// at most MaxWait; default MaxWait). waitOnce checks the ids and the mode.
func waitQuery(q url.Values) ([]string, WaitMode, time.Duration, error) {
	var ids []string
	for _, v := range q["ids"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
	}
	mode := WaitMode(q.Get("mode"))
	if mode == "" {
		mode = WaitAny
	}
	wait := MaxWait
	if v := q.Get("wait"); v != "" {
		d, err := handoff.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, "", 0, bad("wait", "%q: want a duration (60s) or seconds", v)
		}
		wait = min(d, MaxWait)
	}
	return ids, mode, wait, nil
}

func (s *Service) waitDispatches(w http.ResponseWriter, r *http.Request) {
	ids, mode, wait, err := waitQuery(r.URL.Query())
	var got Waited
	if err == nil {
		got, err = s.waitOnce(r.Context(), ids, mode, wait)
	}
	var bf *badField
	switch {
	case errors.As(err, &bf):
		writeJSON(w, http.StatusBadRequest, APIError{Error: bf.Error(), Field: bf.field})
	case errors.Is(err, ErrNotFound):
		writeJSON(w, http.StatusNotFound, APIError{Error: err.Error(), Field: "ids"})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, APIError{Error: err.Error()})
	default:
		writeJSON(w, http.StatusOK, got)
	}
}

// WaitFor waits for one (WaitAny) or all (WaitAll) of the dispatches ids,
// asking again while the service's longest wait (MaxWait) passes, until
// what mode waits for, limit (when above zero) or ctx ends. When limit
// ends it first, the answer names the dispatches still running in Pending.
func (s *Service) WaitFor(ctx context.Context, ids []string, mode WaitMode, limit time.Duration) (Waited, error) {
	return waitUntil(ctx, mode, limit, func(wait time.Duration) (Waited, error) {
		return s.waitOnce(ctx, ids, mode, wait)
	})
}

// WaitFor waits for one (WaitAny) or all (WaitAll) of the dispatches ids
// through GET /v1/wait, as Service.WaitFor does.
func (c *Client) WaitFor(ctx context.Context, ids []string, mode WaitMode, limit time.Duration) (Waited, error) {
	return waitUntil(ctx, mode, limit, func(wait time.Duration) (Waited, error) {
		q := url.Values{"ids": {strings.Join(ids, ",")}, "mode": {string(mode)}, "wait": {wait.String()}}
		var w Waited
		err := c.do(ctx, http.MethodGet, "/v1/wait?"+q.Encode(), nil, &w)
		return w, err
	})
}

// waitUntil asks (a wait of at most MaxWait each time) until the answer is
// what mode waits for, limit (when above zero) has passed, or ctx ends.
func waitUntil(ctx context.Context, mode WaitMode, limit time.Duration, ask func(wait time.Duration) (Waited, error)) (Waited, error) {
	deadline := time.Now().Add(limit)
	for {
		wait := MaxWait
		if limit > 0 {
			wait = max(0, min(wait, time.Until(deadline)))
		}
		w, err := ask(wait)
		if err != nil || w.Satisfied(mode) || ctx.Err() != nil || limit > 0 && !time.Now().Before(deadline) {
			return w, err
		}
	}
}
