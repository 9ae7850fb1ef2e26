package serve

import (
	"fmt"
	"testing"
)

// A stream that names the last event it saw gets the kept events after it
// (only its dispatch's when it follows one); one that asks for events no
// longer kept is told so before the rest.
func TestAStreamFromAnEventGetsWhatCameAfterIt(t *testing.T) {
	h := newHub()
	for i := range 10 {
		h.publish(Event{Type: "transition", ID: fmt.Sprint("d", i%2)})
	}
	c, cancel := h.subscribe("d1", 4)
	defer cancel()
	h.publish(Event{Type: "finished", ID: "d0"})
	h.publish(Event{Type: "finished", ID: "d1"})
	var got []uint64
	for e := range c {
		if e.ID != "d1" {
			t.Fatalf("event %+v of another dispatch", e)
		}
		got = append(got, e.Seq)
		if e.Type == "finished" {
			break
		}
	}
	if fmt.Sprint(got) != "[6 8 10 12]" {
		t.Fatalf("events %v, want d1's after 4: [6 8 10 12]", got)
	}

	for range 3 * recentEvents {
		h.publish(Event{Type: "notice"})
	}
	c2, cancel2 := h.subscribe("", 4)
	defer cancel2()
	if e := <-c2; e.Type != "gap" || e.Message == "" {
		t.Fatalf("first event %+v, want the gap notice", e)
	}
	if e := <-c2; e.Seq <= 4 || e.Type != "notice" {
		t.Fatalf("after the gap %+v", e)
	}
}

// A hundred streams that each follow their own dispatch are each handed
// only its events: one publish is one send, not a hundred.
func TestAFilteredStreamIsNotHandedOtherDispatchesEvents(t *testing.T) {
	h := newHub()
	var subs []<-chan Event
	for i := range 100 {
		c, cancel := h.subscribe(fmt.Sprint("d", i), 0)
		defer cancel()
		subs = append(subs, c)
	}
	for i := range 100 {
		h.publish(Event{Type: "finished", ID: fmt.Sprint("d", i)})
	}
	for i, c := range subs {
		if n := len(c); n != 1 {
			t.Fatalf("stream of d%d holds %d events, want its own one", i, n)
		}
	}
}
