package e2e

// sendsByNameAndAuto are the CLIs whose TestDelivery pane, after its
// rows, takes the shipped command as a user drives it
// (sendByNameAndAuto): `send --provider NAME` twice, then `send
// --provider auto` twice (stderr says NAME recognises the pane), each a
// prompt of three lines that reaches the model whole and once, its line
// breaks as LF, and gets its own answer (exit 0), in a pane that sets
// TERM but not COLORTERM (tmux's own). The other CLIs have send tests of
// their own. The comments say what each shows of itself.
var sendsByNameAndAuto = map[string]bool{
	// Cline folds a paste of five lines or more and would pass a CR on.
	"cline": true,
	// The pane's command is node and its title unset: the footer
	// "◉ Continue CLI" under its box recognises it. No hook fires
	// (Continue has none that does): the screen and the response file
	// decide.
	"continue": true,
	// The pane's command is the binary, named copilot; its title and
	// footer are Copilot CLI's too.
	"copilot": true,
	// The pane's command is droid's binary.
	"droid": true,
	// The pane's command is kilo; OpenCode's rules never claim it.
	"kilo": true,
	// The pane's command is kimi-code, which names the provider.
	"kimi": true,
	// The pane's command is bun, which names no CLI: OMP recognises its
	// own title and screen.
	"omp": true,
}
