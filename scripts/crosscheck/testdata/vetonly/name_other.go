//go:build !darwin

package vetonly

func name() string { return "other" }
