package tmuxdriver

import (
	"context"

	"github.com/handoff-fsm/handoff-fsm/tmuxcontrol"
)

// A pane whose agent exits is an event tmux reports to a control client,
// so a wait looks at once instead of at its next poll:
//   - without remain-on-exit the pane closes: %layout-change (a window of
//     several panes), %window-close or %unlinked-window-close (its last
//     pane), %sessions-changed (its session's last window), %exit (the
//     client's own session ended);
//   - with remain-on-exit the pane stays, dead, and nothing is said unless
//     asked: deadSubscription asks tmux to report #{pane_dead} of every
//     pane of the attached session as it changes (%subscription-changed;
//     tmux checks subscriptions once a second, and only for the attached
//     session's panes, so a dead pane kept in another session is seen at
//     the next poll).
//
// A wake-up decides nothing: the wait looks, and the look says dead, gone
// or alive (Pane.Observe).

// deadSubscription is the refresh-client -B argument that subscribes to
// every pane's #{pane_dead} in the attached session.
const deadSubscription = "handoff-pane-dead:%*:#{pane_dead}"

// paneMayHaveEnded reports whether m is a notification that can mean a
// pane died or closed.
func paneMayHaveEnded(m tmuxcontrol.Message) bool {
	switch m := m.(type) {
	case *tmuxcontrol.Exit:
		return true
	case *tmuxcontrol.Notification:
		switch m.Name {
		case "layout-change", "window-close", "unlinked-window-close", "sessions-changed",
			"session-window-changed", "window-pane-changed", "subscription-changed":
			return true
		}
	}
	return false
}

// subscribeDead asks c for deadSubscription's reports. A tmux that refuses
// it (older than 3.2) leaves the wait to its polls: nothing else changes.
func subscribeDead(ctx context.Context, c *tmuxcontrol.Client) {
	if c != nil {
		_, _ = c.Command(ctx, "refresh-client", "-B", deadSubscription)
	}
}

// ring delivers a value on ch unless one is already waiting.
func ring(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
