package tmuxdriver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// A pane opened with Pick and no classifier names its provider on its
// first look, from what that look saw, once: later looks keep it, and a
// prompt sent goes through the picked provider's composer.
func TestPickNamesTheProviderOnTheFirstLook(t *testing.T) {
	requireTmux(t)
	srv := testServer(t)
	echo, out := echoPane(t, srv) // the echo agent, ready
	id := echo.Target()
	var looks []string
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Pick: func(command, title, capture string) (tmuxdriver.Picked, error) {
		looks = append(looks, capture)
		if !strings.Contains(capture, "READY>") {
			return tmuxdriver.Picked{}, errors.New("not the echo agent")
		}
		return tmuxdriver.Picked{Name: "echo", Classifier: testClassifier{}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		snap, err := p.Observe(context.Background())
		if err != nil || snap.Classification.Status != "idle" {
			t.Fatalf("observe: %+v, %v", snap.Classification, err)
		}
	}
	if name, err := p.Provider(context.Background()); name != "echo" || err != nil || len(looks) != 1 {
		t.Fatalf("provider %q, %v after %d picks; want echo picked once", name, err, len(looks))
	}
	if got := delivered(t, p, out, "hello picked"); got != "hello picked" {
		t.Fatalf("the agent received %q", got)
	}
}

// A pick that fails (no provider, or two, recognise the pane) is the
// error of every look and of Send: nothing is pasted.
func TestAFailedPickIsTheErrorOfEveryLook(t *testing.T) {
	requireTmux(t)
	srv := testServer(t)
	echo, _ := echoPane(t, srv)
	id := echo.Target()
	none := errors.New("no provider recognises the pane")
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Pick: func(string, string, string) (tmuxdriver.Picked, error) {
		return tmuxdriver.Picked{}, none
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Provider(context.Background()); !errors.Is(err, none) {
		t.Fatalf("provider: %v, want the pick's error", err)
	}
	if _, err := p.Observe(context.Background()); !errors.Is(err, none) {
		t.Fatalf("observe: %v, want the pick's error", err)
	}
	if err := p.Send(context.Background(), "hello"); !errors.Is(err, none) {
		t.Fatalf("send: %v, want the pick's error", err)
	}
}
