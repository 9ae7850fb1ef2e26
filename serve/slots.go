package serve

import (
	"context"
	"sync"
)

// slotTable says which dispatch of the service holds each response slot
// (a response file's path): dispatches of the service to one slot go one
// after the other. Another process's hold on a slot is its file lock's
// business (responsefile.Lock), not this table's.
type slotTable struct {
	mu    sync.Mutex
	held  map[string]*dispatch
	freed chan struct{} // closed, and replaced, whenever a slot is freed
}

func newSlotTable() *slotTable {
	return &slotTable{held: map[string]*dispatch{}, freed: make(chan struct{})}
}

// reserve gives the slot at path to d when it is free; otherwise it
// returns its holder.
func (t *slotTable) reserve(path string, d *dispatch) (holder *dispatch, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h, held := t.held[path]; held && h != d {
		return h, false
	}
	t.held[path] = d
	return d, true
}

// take waits until no other dispatch holds the slot at path and gives it
// to d; ctx ending stops the wait (ctx.Err()).
func (t *slotTable) take(ctx context.Context, path string, d *dispatch) error {
	for {
		t.mu.Lock()
		if h, held := t.held[path]; !held || h == d {
			t.held[path] = d
			t.mu.Unlock()
			return nil
		}
		freed := t.freed
		t.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release frees the slot at path if d holds it.
func (t *slotTable) release(path string, d *dispatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held[path] != d {
		return
	}
	delete(t.held, path)
	close(t.freed)
	t.freed = make(chan struct{})
}
