package serve

import (
	"sync"
	"time"
)

// Event is one line of the event stream (GET /v1/events): a dispatch
// accepted, each transition, an agent waiting for the user, a dispatch
// finished, and the service's notices (a tmux server whose control client
// failed, say).
type Event struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	// Type is accepted, transition, attention, finished or notice.
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
	Role string `json:"role,omitempty"`
	// A transition: From → To on Event, with the status seen, At seconds
	// after dispatch.
	From   string  `json:"from,omitempty"`
	To     string  `json:"to,omitempty"`
	Event  string  `json:"event,omitempty"`
	Status string  `json:"status,omitempty"`
	At     float64 `json:"at,omitempty"`
	// State is the dispatch's state after the event.
	State string `json:"state,omitempty"`
	// Outcome and Exit: a finished dispatch's.
	Outcome string `json:"outcome,omitempty"`
	Exit    *int   `json:"exit,omitempty"`
	Message string `json:"message,omitempty"`
}

// subscriberBuffer is how many events a subscriber may lag behind before
// it is dropped (its stream ends; it can reconnect and read the state).
const subscriberBuffer = 4096

// hub hands every event to every subscriber without ever blocking the
// dispatches: a subscriber that falls too far behind is dropped.
type hub struct {
	mu     sync.Mutex
	seq    uint64
	subs   map[chan Event]struct{}
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan Event]struct{}{}} }

func (h *hub) publish(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.seq++
	e.Seq, e.Time = h.seq, time.Now().UTC()
	for c := range h.subs {
		select {
		case c <- e:
		default:
			delete(h.subs, c)
			close(c)
		}
	}
}

// subscribe returns a channel of every event from now on, closed when the
// subscriber falls behind or the hub closes; cancel unsubscribes.
func (h *hub) subscribe() (<-chan Event, func()) {
	c := make(chan Event, subscriberBuffer)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(c)
		return c, func() {}
	}
	h.subs[c] = struct{}{}
	return c, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[c]; ok {
			delete(h.subs, c)
			close(c)
		}
	}
}

func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.subs {
		close(c)
	}
	h.subs = map[chan Event]struct{}{}
}
