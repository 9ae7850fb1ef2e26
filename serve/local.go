package serve

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// ErrNotFound is Local's error for a dispatch id the service does not know
// (the Client gets a 404 StatusError for it).
var ErrNotFound = errors.New("no such dispatch")

// Local is a Service used in this process through the Client's methods, so
// a caller of the engine (the MCP server) is written once for a service in
// its own process and for one it reaches over the API. Bad input is the
// error SubmitBody.State gives, naming the field.
type Local struct{ S *Service }

// Submit accepts a dispatch (as POST /v1/dispatches).
func (l Local) Submit(_ context.Context, b SubmitBody) (View, error) {
	st, err := b.State()
	if err != nil {
		return View{}, err
	}
	return l.S.Submit(Request{State: st})
}

// Get returns dispatch id, waiting up to wait for it to be over.
func (l Local) Get(ctx context.Context, id string, wait time.Duration) (View, error) {
	v, ok := l.S.Get(ctx, id, min(wait, MaxWait))
	if !ok {
		return View{}, errNoDispatch(id)
	}
	return v, nil
}

// Wait returns dispatch id once it is over (or ctx ends).
func (l Local) Wait(ctx context.Context, id string) (View, error) {
	for {
		v, err := l.Get(ctx, id, time.Minute)
		if err != nil || v.Final || ctx.Err() != nil {
			return v, err
		}
	}
}

// Cancel cancels dispatch id and returns it once it is over.
func (l Local) Cancel(ctx context.Context, id string) (View, error) {
	v, ok := l.S.Cancel(ctx, id)
	if !ok {
		return View{}, errNoDispatch(id)
	}
	return v, nil
}

func errNoDispatch(id string) error { return &notFound{id} }

type notFound struct{ id string }

func (e *notFound) Error() string { return "no dispatch " + e.id }
func (e *notFound) Unwrap() error { return ErrNotFound }

// Events streams the service's events (one dispatch's with id; with
// after > 0, first the kept ones numbered after it) until ctx ends or the
// service stops; the channel is closed then.
func (l Local) Events(ctx context.Context, id string, after uint64) (<-chan Event, error) {
	in, cancel := l.S.hub.subscribe(id, after)
	out := make(chan Event, 64)
	go func() {
		defer close(out)
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-in:
				if !ok {
					return
				}
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// List returns the dispatches the filters select (as GET /v1/dispatches,
// ParseFilter's names); bad filters are the error ParseFilter gives.
func (l Local) List(_ context.Context, q url.Values) ([]View, error) {
	f, err := ParseFilter(q, time.Now())
	if err != nil {
		return nil, err
	}
	return l.S.List(f), nil
}

// Panes returns the board of a tmux server (the query of GET /v1/panes:
// socket or socket_path, target, provider).
func (l Local) Panes(ctx context.Context, q url.Values) ([]PaneRow, error) {
	srv := tmuxdriver.Server{Socket: q.Get("socket"), SocketPath: q.Get("socket_path")}
	if srv.Socket != "" && srv.SocketPath != "" {
		return nil, bad("socket_path", "give socket or socket_path, not both")
	}
	return l.S.Board(ctx, srv, q.Get("target"), q.Get("provider"))
}
