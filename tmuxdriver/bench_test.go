package tmuxdriver_test

import (
	"context"
	"testing"
)

// BenchmarkObserve measures one poll of a live pane: one tmux process that
// reads liveness, title and a 200-line capture, plus the classification.
func BenchmarkObserve(b *testing.B) {
	srv := testServer(b)
	p, _ := echoPane(b, srv)
	ctx := context.Background()
	for b.Loop() {
		if _, err := p.Observe(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSend measures delivering a prompt: paste, the Enter delay
// (250 ms by default, most of the cost), Enter and the verification.
func BenchmarkSend(b *testing.B) {
	srv := testServer(b)
	p, _ := echoPane(b, srv)
	ctx := context.Background()
	for b.Loop() {
		if err := p.Send(ctx, "a prompt\nof two lines"); err != nil {
			b.Fatal(err)
		}
	}
}
