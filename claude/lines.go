package claude

import "github.com/handoff-fsm/handoff-fsm/screen"

// lines is the shared bottom-up walk; line is one line of it, cleaned.
type (
	lines = screen.Lines
	line  = screen.Line
)
