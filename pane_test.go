package handoff_test

import (
	"errors"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// An identity with a field missing (or a pid that is none) is refused
// naming that field; a whole one passes.
func TestPaneIdentityValidateNamesTheField(t *testing.T) {
	whole := handoff.PaneIdentity{Server: "/tmp/tmux-0/default", ServerPID: 10, ServerStarted: "7",
		Pane: "%3", PID: 11, Started: "42"}
	if err := whole.Validate(); err != nil {
		t.Fatalf("a whole identity: %v", err)
	}
	for field, spoil := range map[string]func(*handoff.PaneIdentity){
		"server":         func(p *handoff.PaneIdentity) { p.Server = "" },
		"server_pid":     func(p *handoff.PaneIdentity) { p.ServerPID = 0 },
		"server_started": func(p *handoff.PaneIdentity) { p.ServerStarted = "" },
		"pane":           func(p *handoff.PaneIdentity) { p.Pane = "" },
		"pid":            func(p *handoff.PaneIdentity) { p.PID = -1 },
		"started":        func(p *handoff.PaneIdentity) { p.Started = "" },
	} {
		p := whole
		spoil(&p)
		var fe *handoff.PaneFieldError
		if err := p.Validate(); !errors.As(err, &fe) || fe.Field != field || fe.Problem == "" {
			t.Errorf("%s spoilt: %v, want a PaneFieldError naming %s", field, err, field)
		}
	}
}
