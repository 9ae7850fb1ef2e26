package qwen

import "time"

// What this package reads: the CLI (its npm package), the version its real
// screens and end-to-end tests are proven on, and the hook that reports the
// end of a turn (registered as `handoff-fsm hook --dir DIR`).
const (
	CLI     = "@qwen-code/qwen-code"
	Version = "0.24.4"
	Hook    = "Stop"
)

// EnterDelay is the pause Qwen Code is given between a paste and Enter.
// It folds a long paste into "[Pasted Content N chars]" and unfolds it
// when the prompt is submitted; with the driver's default pause (a quarter
// second, then until the screen holds still) it sometimes sent the model
// the placeholder itself (2 of 5 second dispatches on a loaded machine).
// Its input handler reads the folded text from state, and it re-renders
// half a second after a paste; a pause past that is the cure tried here.
const EnterDelay = 1500 * time.Millisecond
