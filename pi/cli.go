package pi

// What this package reads: the CLI (its npm package), the version its real
// screens and end-to-end tests are proven on, and the hook that reports the
// end of a turn: none (pi has extensions, not hooks; see docs/providers.md).
const (
	CLI     = "@mariozechner/pi-coding-agent"
	Version = "0.73.1"
	Hook    = ""
)
