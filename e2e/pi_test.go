package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realpi"
	"github.com/handoff-fsm/handoff-fsm/pi"
)

// newPiRigAt starts a fake Chat Completions API (shell tool bash) and pi
// in root's work folder and HOME; opts sets the rest. Everything ends in
// t.Cleanup.
func newPiRigAt(t *testing.T, opts realpi.Options, root string) *rig {
	t.Helper()
	return startRig(t, realpi.CLI, fakemodel.ChatCompletions{ShellTool: realpi.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realpi.Start(ctx, opts) })
}

// piSignals reads a plain screen with pi's classifier.
func piSignals(plain string) pi.Signals {
	s, _ := pi.New().Classify(plain, "").Signals.(pi.Signals)
	return s
}

// piBusy reports the working line above the editor ("⠴ Working...").
func piBusy(plain string) bool { return piSignals(plain).BusyLine != 0 }

// piFinished reports a turn that ended with last on the screen: nothing
// busy, an empty editor, last in the newest block.
func piFinished(plain, last string) bool {
	s := piSignals(plain)
	return s.BusyLine == 0 && s.Chrome == pi.ChromeComposer && strings.Contains(plain, last)
}
