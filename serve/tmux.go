package serve

import (
	"context"
	"strings"
	"sync"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// terminals opens the panes of the dispatches: with control on, one shared
// control-mode client per tmux server (tmuxdriver.Shared), started with
// the first dispatch on that server and ended with the last.
type terminals struct {
	control bool
	notice  func(msg string, args ...any)

	mu      sync.Mutex
	servers map[serverKey]*sharedRef
}

type serverKey struct{ socket, socketPath string }

type sharedRef struct {
	shared *tmuxdriver.Shared
	users  int
}

func newTerminals(control bool, notice func(string, ...any)) *terminals {
	return &terminals{control: control, notice: notice, servers: map[serverKey]*sharedRef{}}
}

// term is a dispatch's pane, and a channel that wakes its wait when the
// server's control client dies (the server may be gone: look now); the
// wait takes it as output (fsm.WakeSources.Output).
type term struct {
	pane *tmuxdriver.Pane
	wake <-chan struct{}
}

// pane opens st's pane; release when the dispatch is over.
func (t *terminals) pane(ctx context.Context, st *dispatchstate.State) (term, func(), error) {
	if !t.control {
		p, err := st.Open(nil)
		return term{pane: p}, func() {}, err
	}
	o, err := st.PaneOptions()
	if err != nil {
		return term{}, nil, err
	}
	key := serverKey{st.Socket, st.SocketPath}
	ref := t.acquire(ctx, key, o.Server, st.Target)
	o.Runner = ref.shared.Runner()
	p, err := tmuxdriver.New(o)
	if err != nil {
		t.release(key, ref)
		return term{}, nil, err
	}
	wake, stop := ref.shared.Watch()
	return term{pane: p, wake: wake}, func() { stop(); t.release(key, ref) }, nil
}

// acquire returns the server's shared client, starting one (attached to
// target's session) when there is none or the last one fell back.
func (t *terminals) acquire(ctx context.Context, key serverKey, srv tmuxdriver.Server, target string) *sharedRef {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ref, ok := t.servers[key]; ok && !ref.shared.FellBack() {
		ref.users++
		return ref
	}
	session := ""
	if target != "" {
		if out, err := srv.Run(ctx, nil, "display-message", "-p", "-t", target, "#{session_id}"); err == nil {
			session = strings.TrimSpace(out)
		}
	}
	where := "-L " + key.socket
	if key.socketPath != "" {
		where = "-S " + key.socketPath
	} else if key.socket == "" {
		where = "(default server)"
	}
	ref := &sharedRef{users: 1}
	ref.shared = tmuxdriver.StartShared(context.WithoutCancel(ctx), srv, session, func(err error) {
		t.notice("tmux control mode is unavailable on this server; its dispatches poll with one tmux process per look",
			"server", where, "error", err)
	})
	t.servers[key] = ref
	return ref
}

func (t *terminals) release(key serverKey, ref *sharedRef) {
	t.mu.Lock()
	ref.users--
	last := ref.users == 0
	if last && t.servers[key] == ref {
		delete(t.servers, key)
	}
	t.mu.Unlock()
	if last {
		_ = ref.shared.Close()
	}
}

// runner is a command runner for looks at srv outside a dispatch (the
// board): the server's shared client (started if none runs), or a tmux
// process per command without control mode.
func (t *terminals) runner(ctx context.Context, key serverKey, srv tmuxdriver.Server) (tmuxdriver.Runner, func()) {
	if !t.control {
		return srv, func() {}
	}
	ref := t.acquire(ctx, key, srv, "")
	return ref.shared.Runner(), func() { t.release(key, ref) }
}

// close ends every shared client (the dispatches have stopped).
func (t *terminals) close() {
	t.mu.Lock()
	refs := t.servers
	t.servers = map[serverKey]*sharedRef{}
	t.mu.Unlock()
	for _, ref := range refs {
		_ = ref.shared.Close()
	}
}
