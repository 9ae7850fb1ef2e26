package serve

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
)

// Engine is a dispatch's life as the service offers it: submit, follow
// (Get, Events), wait (WaitFor, and Wait for one), cancel, list (List,
// Panes). A *Service in this process and a *Client of a service reached
// over its API meet it with the same signatures, so a caller (the
// commands, the loop, the MCP tools) is written once for both.
type Engine interface {
	Submit(ctx context.Context, b SubmitBody) (View, error)
	Get(ctx context.Context, id string, wait time.Duration) (View, error)
	Events(ctx context.Context, id string, after uint64) (<-chan Event, error)
	WaitFor(ctx context.Context, ids []string, mode WaitMode, limit time.Duration) (Waited, error)
	Cancel(ctx context.Context, id string) (View, error)
	List(ctx context.Context, q url.Values) ([]View, error)
	Panes(ctx context.Context, q url.Values) ([]PaneRow, error)
}

var (
	_ Engine = (*Service)(nil)
	_ Engine = (*Client)(nil)
)

// ErrNotFound is the error, wrapped, for a dispatch id the service does
// not know (the Client gets a 404 StatusError for it).
var ErrNotFound = errors.New("no such dispatch")

func errNoDispatch(id string) error { return &notFound{id} }

type notFound struct{ id string }

func (e *notFound) Error() string { return "no dispatch " + e.id }
func (e *notFound) Unwrap() error { return ErrNotFound }

// Wait returns dispatch id of e once it is over, asking again each time
// the service's longest wait passes; when ctx ends first, its last view
// and ctx's error.
func Wait(ctx context.Context, e Engine, id string) (View, error) {
	for {
		v, err := e.Get(ctx, id, time.Minute)
		if err == nil && !v.Final {
			err = ctx.Err()
		}
		if err != nil || v.Final {
			return v, err
		}
	}
}

// Events streams the service's events (one dispatch's with id; with
// after > 0, first the kept ones numbered after it) until ctx ends or the
// service stops; the channel is closed then.
func (s *Service) Events(ctx context.Context, id string, after uint64) (<-chan Event, error) {
	in, cancel := s.hub.subscribe(id, after)
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
func (s *Service) List(_ context.Context, q url.Values) ([]View, error) {
	f, err := ParseFilter(q, time.Now())
	if err != nil {
		return nil, err
	}
	return s.Dispatches(f), nil
}

// Panes returns the board of a tmux server (the query of GET /v1/panes:
// socket or socket_path, target, provider).
func (s *Service) Panes(ctx context.Context, q url.Values) ([]PaneRow, error) {
	p := dispatchstate.Pane{Socket: q.Get("socket"), SocketPath: q.Get("socket_path")}
	if err := p.CheckServer(); err != nil {
		return nil, bad("socket_path", "%v", err)
	}
	return s.Board(ctx, p.Server(0), q.Get("target"), q.Get("provider"))
}
