//go:build race

package fsm_test

// raceEnabled: the race detector slows the core tenfold; the exhaustive
// check shortens its sequences under it.
const raceEnabled = true
