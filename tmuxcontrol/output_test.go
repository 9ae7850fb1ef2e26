package tmuxcontrol

import (
	"testing"
	"time"
)

// A consumer that does not read never blocks the reader, and loses no
// pane: events merge per pane until taken.
func TestOutputEventsMergePerPane(t *testing.T) {
	c := &Client{
		done: make(chan struct{}),
		outM: map[string]*OutputEvent{},
		bell: make(chan struct{}, 1),
		out:  make(chan OutputEvent),
	}
	go c.forward()
	now := time.Now()
	for i := range 1000 {
		pane := "%1"
		if i%10 == 0 {
			pane = "%2"
		}
		c.noteOutput(pane, 3, now.Add(time.Duration(i)))
	}
	count := map[string]int{}
	bytes := map[string]int{}
	events := 0
	for events < 10 {
		var ev OutputEvent
		select {
		case ev = <-c.out:
		case <-time.After(100 * time.Millisecond):
		}
		if ev.Pane == "" {
			break
		}
		events++
		count[ev.Pane] += ev.Count
		bytes[ev.Pane] += ev.Bytes
		if ev.Last.Before(ev.First) {
			t.Errorf("event %+v ends before it starts", ev)
		}
	}
	if count["%1"] != 900 || count["%2"] != 100 || bytes["%1"] != 2700 {
		t.Fatalf("merged counts %v, bytes %v; want %%1 900, %%2 100", count, bytes)
	}
	if events > 4 {
		t.Fatalf("%d events for two panes: not merged", events)
	}
	close(c.done)
	if _, ok := <-c.out; ok {
		t.Fatal("the channel stays open after the client ended")
	}
}
