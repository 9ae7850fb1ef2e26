package gemini

// What this package reads: the CLI (its npm package), the version its real
// screens and end-to-end tests are proven on, and the hook that reports the
// end of a turn (registered as `handoff-fsm hook --dir DIR`).
const (
	CLI     = "@google/gemini-cli"
	Version = "0.61.0"
	Hook    = "AfterAgent"
)
