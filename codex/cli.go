package codex

// What this package reads: the CLI (its npm package), the version its real
// screens and end-to-end tests are proven on, and the hook that reports the
// end of a turn (registered as `handoff-fsm hook --dir DIR`).
const (
	CLI     = "@openai/codex"
	Version = "0.169.0"
	Hook    = "notify (agent-turn-complete)"
)
