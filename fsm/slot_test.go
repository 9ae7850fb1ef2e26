package fsm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// gated is an agent that, once sent a prompt, works until its gate opens,
// then writes answer and goes idle. started is closed at its first poll.
type gated struct {
	gate    chan struct{}
	started chan struct{}
	once    sync.Once
	mu      sync.Mutex
	sent    int
	answerer
}

func newGated(path, answer string) *gated {
	return &gated{answerer: answerer{path: path, answer: answer}, gate: make(chan struct{}), started: make(chan struct{})}
}

func (g *gated) Status(ctx context.Context) (handoff.Status, error) {
	g.once.Do(func() { close(g.started) })
	g.mu.Lock()
	sent := g.sent
	g.mu.Unlock()
	if sent == 0 {
		return handoff.StatusIdle, nil // ready for a prompt
	}
	select {
	case <-g.gate:
	default:
		return handoff.StatusProcessing, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status(false)
}

func (g *gated) Send(context.Context, string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sent++
	return nil
}

// pacedClock is virtual time that also yields a little real time on each
// sleep, so a gated agent's dispatch stays in flight while the test acts.
type pacedClock struct{ *vclock.Clock }

func (c pacedClock) SleepUntil(ctx context.Context, t time.Time) error {
	time.Sleep(time.Millisecond)
	return c.Clock.SleepUntil(ctx, t)
}

func TestSecondDispatchToABusySlotIsRefusedAndTheFirstGetsItsAnswer(t *testing.T) {
	work, p, _ := setup(t)
	first := newGated(p, "first answer")
	type out struct {
		res fsm.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := fsm.SendAndWait(context.Background(), first, first, "one", fsm.Options{
			Role: "analyst", Workdir: work, Clock: pacedClock{vclock.New(t0)}, Logger: quiet(),
		})
		done <- out{res, err}
	}()
	<-first.started

	// The same role and folder: refused at once, nothing sent, no file
	// touched; through Wait as well as SendAndWait.
	second := newGated(p, "second answer")
	start := time.Now()
	_, err := fsm.SendAndWait(context.Background(), second, second, "two", fsm.Options{
		Role: "analyst", Workdir: work, Clock: vclock.New(t0), Logger: quiet(),
	})
	if !errors.Is(err, responsefile.ErrSlotBusy) || !strings.Contains(err.Error(), "analyst") || !strings.Contains(err.Error(), work) {
		t.Fatalf("second dispatch: %v, want ErrSlotBusy naming the role and folder", err)
	}
	if time.Since(start) > time.Second || second.sent != 0 {
		t.Fatalf("refused after %v with %d prompts sent; want at once, none", time.Since(start), second.sent)
	}
	if _, err := fsm.Wait(context.Background(), second, fsm.Options{Role: "analyst", Workdir: work, Clock: vclock.New(t0), Logger: quiet()}); !errors.Is(err, responsefile.ErrSlotBusy) {
		t.Fatalf("second Wait: %v, want ErrSlotBusy", err)
	}

	// A dispatch that waits for the slot goes once the first is done.
	waiter := make(chan out, 1)
	third := newGated(p, "third answer")
	go func() {
		res, err := fsm.SendAndWait(context.Background(), third, third, "three", fsm.Options{
			Role: "analyst", Workdir: work, Clock: vclock.New(t0), Logger: quiet(), WaitSlot: true,
		})
		waiter <- out{res, err}
	}()
	time.Sleep(100 * time.Millisecond)
	third.mu.Lock()
	if third.sent != 0 {
		t.Fatal("the waiting dispatch sent its prompt while the slot was held")
	}
	third.mu.Unlock()

	close(first.gate)
	if o := <-done; o.err != nil || o.res.Content != "first answer" {
		t.Fatalf("first dispatch: %q, %v; want its answer", o.res.Content, o.err)
	}
	close(third.gate)
	if o := <-waiter; o.err != nil || o.res.Content != "third answer" || third.sent != 1 {
		t.Fatalf("waiting dispatch: %q, %v (sent %d)", o.res.Content, o.err, third.sent)
	}
}
