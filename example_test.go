package handoff_test

import (
	"context"
	"errors"
	"fmt"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// Dispatch a prompt to the Codex agent in tmux pane %3 and wait for its
// answer: the README's library example, compiled here so it stays true. (It
// has no Output line: it needs a live agent, so `go test` builds it but does
// not run it.)
func Example() {
	ctx := context.Background()
	classifier, err := provider.Lookup("codex") // or "claude": the agent CLI in the pane
	if err != nil {
		fmt.Println(err)
		return
	}
	pane, err := tmuxdriver.New(tmuxdriver.Options{Target: "%3", Classifier: classifier})
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := fsm.Options{Config: handoff.DefaultConfig(), Role: "analyst", Workdir: "/home/me/proj"}
	res, err := fsm.SendAndWait(ctx, pane, pane, "Summarise the design", opts)
	switch {
	case errors.Is(err, handoff.ErrNoResponseFile): // the agent forgot the file
	case errors.Is(err, handoff.ErrTerminalError): // the agent showed an error, or died
	case errors.Is(err, handoff.ErrTimeout): // still working after the response timeout
	case err != nil: // anything else (bad role, unusable file, ctx)
	default:
		fmt.Println(res.Content, res.Source, res.Journal)
	}
}
