package vclock

import (
	"testing"
	"time"
)

func TestTimersFireAsTimePasses(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	clk := New(t0)
	tm := clk.Timer(5 * time.Second)
	clk.Sleep(4 * time.Second)
	select {
	case <-tm.C:
		t.Fatal("timer fired early")
	default:
	}
	clk.Sleep(time.Second)
	select {
	case got := <-tm.C:
		if !got.Equal(at(5)) {
			t.Errorf("fired with %v, want 5 s", got.Sub(t0))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("timer did not fire")
	}
	if clk.Since(t0) != 5*time.Second || clk.Until(at(7)) != 2*time.Second {
		t.Errorf("Since/Until disagree with Now %v", clk.Now())
	}
}
