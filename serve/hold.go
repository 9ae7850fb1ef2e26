package serve

import (
	"context"
	"sync"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// Hold keeps srv's shared tmux control client (started if none runs) until
// release is called, so that looks repeated outside any dispatch — the web
// board's, every few seconds while a page is open — reuse one client
// instead of starting and ending one each time. Without control mode it
// holds nothing. release may be called more than once.
func (s *Service) Hold(ctx context.Context, srv tmuxdriver.Server) (release func()) {
	if !s.tmux.control {
		return func() {}
	}
	key := serverKey{srv.Socket, srv.SocketPath}
	ref := s.tmux.acquire(ctx, key, srv, "")
	var once sync.Once
	return func() { once.Do(func() { s.tmux.release(key, ref) }) }
}
