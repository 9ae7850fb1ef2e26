package serve_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// A service without a state folder is the engine of one command (send):
// it takes no lock (two run side by side), runs the dispatch to its
// answer, and hands each dispatch to its owner's part (Options.Dispatch),
// whose options the wait then uses.
func TestAServiceInMemoryRunsADispatchWithItsOwnersPart(t *testing.T) {
	requireTmux(t)
	a := startAgents(t, 1, simtest.Quick())
	var parts, looks atomic.Int32
	part := func(st *dispatchstate.State, h *dispatchstate.Hooks) {
		parts.Add(1)
		service := h.Options
		h.Options = func(o *fsm.Options) {
			service(o)
			polled := o.OnPoll
			o.OnPoll = func(p fsm.Poll) { polled(p); looks.Add(1) }
		}
	}
	svc, err := serve.New(serve.Options{Events: true, Dispatch: part})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	other, err := serve.New(serve.Options{})
	if err != nil {
		t.Fatalf("a second service in memory: %v", err)
	}
	other.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := svc.Submit(ctx, a.body(a.Panes[0], "analyst", "in memory"))
	if err != nil {
		t.Fatal(err)
	}
	final, err := serve.Wait(ctx, svc, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if final.Outcome != "done" || content(final) != "in memory\n" {
		t.Fatalf("outcome %q, content %q, error %q", final.Outcome, content(final), final.Error)
	}
	if parts.Load() != 1 || looks.Load() == 0 {
		t.Errorf("the owner's part ran %d times and saw %d looks (want once, and the looks)", parts.Load(), looks.Load())
	}
}

// Bad input is ErrBadInput, from a service as from its client (a 400).
func TestBadInputIsErrBadInputFromServiceAndClient(t *testing.T) {
	s := startService(t, "", false)
	bad := serve.SubmitBody{Role: "analyst", Workdir: t.TempDir(), Prompt: "x"} // no target
	if _, err := s.Submit(context.Background(), bad); !errors.Is(err, serve.ErrBadInput) {
		t.Errorf("service: %v, want ErrBadInput", err)
	}
	if _, err := s.client.Submit(context.Background(), bad); !errors.Is(err, serve.ErrBadInput) {
		t.Errorf("client: %v, want ErrBadInput", err)
	}
	if _, err := s.client.Get(context.Background(), "no-such", 0); errors.Is(err, serve.ErrBadInput) {
		t.Errorf("client: a 404 (%v) is not bad input", err)
	}
}
