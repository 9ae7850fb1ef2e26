package claude

// What this package reads: the CLI (its npm package), the version its real
// screens and end-to-end tests are proven on, and the hook that reports the
// end of a turn (registered as `handoff-fsm hook --dir DIR`).
const (
	CLI     = "@anthropic-ai/claude-code"
	Version = "2.1.330"
	Hook    = "Stop"
)
