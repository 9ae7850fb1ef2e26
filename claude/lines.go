package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// lines is the shared bottom-up walk; line is one line of it, cleaned.
type (
	lines = screen.Lines
	line  = screen.Line
)

// excerpt shortens a line for the signals, at a rune boundary, and copies
// it (a cleaned line lives in the walk's arena).
func excerpt(s string) string { return excerptN(s, 160) }

// excerptN is excerpt with a limit of max bytes.
func excerptN(s string, max int) string { return strings.Clone(screen.Excerpt(s, max)) }
