package opencode

// What this package reads: the CLI (its npm package), the version its real
// screens are proven on, and the hook that reports the end of a turn (none
// is registered: OpenCode's would be a plugin, not a command).
const (
	CLI     = "opencode-ai"
	Version = "1.18.33"
	Hook    = ""
)
