// Package vetonly type-checks everywhere; its Darwin file has a finding
// of go vet's (printf).
package vetonly

// Name says who runs it.
func Name() string { return name() }
