package testkit

import (
	"context"
	"sync"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Sends is a handoff.Sender that keeps each text sent through it, then
// passes it on to the Sender it wraps: what a dispatch pasted, and how
// often. Set Sender (or call Wrap) before the dispatch sends.
type Sends struct {
	handoff.Sender
	mu   sync.Mutex
	sent []string
}

// Wrap makes s send through inner and returns s: a dispatch's sender hook.
func (s *Sends) Wrap(inner handoff.Sender) handoff.Sender {
	s.Sender = inner
	return s
}

// Send keeps text and sends it through the wrapped Sender.
func (s *Sends) Send(ctx context.Context, text string) error {
	s.mu.Lock()
	s.sent = append(s.sent, text)
	s.mu.Unlock()
	return s.Sender.Send(ctx, text)
}

// Count is how many texts were sent.
func (s *Sends) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sent)
}

// Last is the last text sent ("" before any).
func (s *Sends) Last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sent) == 0 {
		return ""
	}
	return s.sent[len(s.sent)-1]
}
