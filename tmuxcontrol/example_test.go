package tmuxcontrol_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/handoff-fsm/handoff-fsm/tmuxcontrol"
)

// A driver that wakes up when the agent's pane changes instead of waiting
// for its next poll, and falls back to polling when control mode is gone.
func ExampleStart() {
	ctx := context.Background()
	c, err := tmuxcontrol.Start(ctx, tmuxcontrol.Options{Socket: "agents", Session: "work"})
	if err != nil {
		// errors.Is(err, tmuxcontrol.ErrUnavailable): poll as before.
		fmt.Fprintln(os.Stderr, "handoff-fsm: no tmux control mode, polling:", err)
		return
	}
	defer c.Close()

	poll := time.NewTicker(2 * time.Second)
	defer poll.Stop()
	var settle <-chan time.Time // debounce: read once the output pauses
	for {
		select {
		case ev, ok := <-c.Output():
			if !ok {
				fmt.Fprintln(os.Stderr, "handoff-fsm: tmux control mode ended, polling:", c.Err())
				return
			}
			if ev.Pane == "%3" {
				settle = time.After(50 * time.Millisecond)
			}
			continue
		case <-settle:
		case <-poll.C:
		}
		screen, err := c.Capture(ctx, "%3")
		if err != nil {
			return
		}
		fmt.Print(screen) // classify it here
	}
}
