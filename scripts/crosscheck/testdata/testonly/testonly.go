// Package testonly builds everywhere; its tests, internal and external,
// use what only Linux has.
package testonly

// Answer is what the tests check.
const Answer = 42
