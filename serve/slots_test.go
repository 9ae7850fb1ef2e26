package serve

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Dispatches of the service to one response slot go one after the other:
// a second one waits until the holder frees the slot (a holder that never
// ran, its acceptance failed, frees it all the same), and a wait that is
// cancelled gives up without the slot.
func TestDispatchesToOneSlotGoOneAfterTheOther(t *testing.T) {
	slots := newSlotTable()
	first, second, third := &dispatch{}, &dispatch{}, &dispatch{}
	if _, ok := slots.reserve("/w/analyst.md", first); !ok {
		t.Fatal("a free slot was not given")
	}
	if h, ok := slots.reserve("/w/analyst.md", second); ok || h != first {
		t.Fatalf("a held slot was given (holder %p, want %p)", h, first)
	}
	if _, ok := slots.reserve("/w/tester.md", third); !ok {
		t.Fatal("another role's slot is not free")
	}
	took := make(chan error, 1)
	go func() { took <- slots.take(context.Background(), "/w/analyst.md", second) }()
	select {
	case err := <-took:
		t.Fatalf("the second took the slot while the first held it (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	slots.release("/w/analyst.md", third) // not its holder: nothing changes
	slots.release("/w/analyst.md", first)
	if err := <-took; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := slots.take(ctx, "/w/analyst.md", first); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v, want context.Canceled", err)
	}
	if h, _ := slots.reserve("/w/analyst.md", first); h != second {
		t.Fatalf("the slot's holder is %p, want the second (%p)", h, second)
	}
}
