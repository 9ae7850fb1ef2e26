package gemini

import "time"

// What this package reads: the CLI (its npm package), the version its real
// screens and end-to-end tests are proven on, and the hook that reports the
// end of a turn (registered as `handoff-fsm hook --dir DIR`).
const (
	CLI     = "@google/gemini-cli"
	Version = "0.61.0"
	Hook    = "AfterAgent"
)

// EnterDelay is the pause Gemini CLI is given between a paste and Enter: an
// Enter within about half a second of a paste, as its event loop sees it,
// is taken as a new line in the composer, and on a loaded machine its loop
// runs late. A paste of more than a few lines shows only as "[Pasted Text:
// N lines]", so the driver cannot see such a new line and press Enter again
// in time (a delivery row on a machine at load 19 kept its prompt in the
// composer after four Enters at the driver's default quarter second).
const EnterDelay = time.Second
