package main

import (
	"flag"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
)

// Every command that waits takes the same config flags, declared once.
func TestEveryWaitingCommandTakesTheConfigFlags(t *testing.T) {
	all := flag.NewFlagSet("config", flag.ContinueOnError)
	configflag.Add(all, handoff.DefaultConfig(), "")
	for _, name := range []string{"send", "run", "mcp", "demo", "replay"} {
		fs := flagsOf(commands()[name])
		all.VisitAll(func(want *flag.Flag) {
			got := fs.Lookup(want.Name)
			if got == nil || !strings.HasPrefix(got.Usage, want.Usage) {
				t.Errorf("%s: --%s missing or described otherwise (%v)", name, want.Name, got)
			}
		})
	}
	if !configflag.IsFlag("busy-wait") || configflag.IsFlag("target") {
		t.Error("isConfigFlag does not tell the config flags")
	}
}
