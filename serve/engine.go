package serve

import (
	"context"
	"net/url"
	"time"
)

// Engine is a dispatch's life as the service offers it: submit, follow
// (Get, Events), wait (WaitFor), cancel, list (List, Panes). Local (a
// Service in this process) and *Client (a service reached over its API)
// meet it with the same signatures, so a caller is written once for both.
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
	_ Engine = Local{}
	_ Engine = (*Client)(nil)
)
