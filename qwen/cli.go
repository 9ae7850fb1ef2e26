package qwen

// What this package reads: the CLI (its npm package), the version its real
// screens and end-to-end tests are proven on, and the hook that reports the
// end of a turn (registered as `handoff-fsm hook --dir DIR`).
const (
	CLI     = "@qwen-code/qwen-code"
	Version = "0.24.4"
	Hook    = "Stop"
)
