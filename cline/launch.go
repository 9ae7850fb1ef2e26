package cline

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// launch is how `handoff-fsm up` runs Cline. Cline 3.0.65 runs the hook
// scripts it finds in its configuration folder's hooks/ (TaskComplete.sh
// at the end of each turn, the event's JSON on stdin); --hooks-dir adds
// none to the terminal UI (tried). So the run gets a configuration folder
// of its own (--config, in the team's files) holding only that hook, and
// keeps the user's data (--data-dir ~/.cline/data: the provider, the
// model, MCP servers, the history). Cline has no flag that continues its
// last session (only --id SESSION): after a kill it starts afresh.
func launch() screen.Launch {
	return screen.Launch{Hook: hook, Via: "--config FOLDER holding hooks/TaskComplete.sh, --data-dir ~/.cline/data"}
}

// hook wires cmd as the TaskComplete hook of one run.
func hook(files string, cmd []string) screen.Wiring {
	config := filepath.Join(files, "cline-config")
	quoted := make([]string, len(cmd))
	for i, a := range cmd {
		quoted[i] = handoff.ShellQuote(a)
	}
	script := "#!/bin/sh\n# handoff-fsm up: the end of each Cline turn.\nexec " + strings.Join(quoted, " ") + "\n"
	args := []string{"--config", config}
	if home, err := os.UserHomeDir(); err == nil {
		args = append(args, "--data-dir", filepath.Join(home, ".cline", "data"))
	}
	return screen.Wiring{Args: args, Files: map[string][]byte{filepath.Join(config, "hooks", "TaskComplete.sh"): []byte(script)}}
}
