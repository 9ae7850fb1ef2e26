package web

import (
	"context"
	"os"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// timedOutMarks describes, by pane id, the dispatch that timed out on
// each pane of srv and left it marked busy. The panes' identities cost a
// tmux call, made only when some mark exists at all.
func timedOutMarks(ctx context.Context, srv tmuxdriver.Server) map[string]string {
	dir, err := panelock.Dir()
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	marked := false
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".timedout.json") {
			marked = true
			break
		}
	}
	if !marked {
		return nil
	}
	ids, err := srv.Identities(ctx, nil)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for pane, id := range ids {
		if m := panelock.TimedOutOn(dir, id); m != nil {
			out[pane] = m.Describe()
		}
	}
	return out
}
