//go:build !race

package fsm_test

const raceEnabled = false
