package serve

import (
	"fmt"
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
	// Type is accepted, transition, attention, finished or notice; "gap"
	// starts a stream that asked for events no longer kept.
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

// recentEvents is how many of the last events the hub keeps, so a
// subscriber that names the last event it saw (a client that submitted a
// dispatch and then subscribed to its events, a browser reconnecting) gets
// what it missed.
const recentEvents = 1024

// hub hands every event to every subscriber without ever blocking the
// dispatches: a subscriber that falls too far behind is dropped.
type hub struct {
	mu     sync.Mutex
	seq    uint64
	subs   map[chan Event]string // the dispatch id it follows; "" for all
	recent []Event               // at least the last recentEvents events, oldest first
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan Event]string{}} }

// publish numbers e, keeps it among the recent events and hands it to the
// subscribers that follow it; it returns e's sequence number.
func (h *hub) publish(e Event) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0
	}
	h.seq++
	e.Seq, e.Time = h.seq, time.Now().UTC()
	if len(h.recent) == 2*recentEvents {
		// Forget the older half at once: a copy every recentEvents events,
		// not one per event.
		h.recent = append(make([]Event, 0, 2*recentEvents), h.recent[recentEvents:]...)
	}
	h.recent = append(h.recent, e)
	for c, id := range h.subs {
		if id != "" && e.ID != id {
			// Filtered here, not by each stream: a hundred clients that
			// each follow their own dispatch cost one send per event.
			continue
		}
		select {
		case c <- e:
		default:
			delete(h.subs, c)
			close(c)
		}
	}
	return e.Seq
}

// subscribe returns a channel of the events of dispatch id ("" for every
// event) from now on, closed when the subscriber falls behind or the hub
// closes; cancel unsubscribes. With after > 0 the channel first holds the
// kept events numbered after it; when some of those are no longer kept it
// starts with a "gap" notice saying so.
func (h *hub) subscribe(id string, after uint64) (<-chan Event, func()) {
	c := make(chan Event, subscriberBuffer)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(c)
		return c, func() {}
	}
	if after > 0 && after < h.seq {
		if len(h.recent) > 0 && h.recent[0].Seq > after+1 {
			c <- Event{Type: "gap", Seq: after, Time: time.Now().UTC(),
				Message: fmt.Sprintf("events %d to %d are no longer kept", after+1, h.recent[0].Seq-1)}
		}
		for _, e := range h.recent {
			if e.Seq > after && (id == "" || e.ID == id) {
				c <- e
			}
		}
	}
	h.subs[c] = id
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
	h.subs = map[chan Event]string{}
}
