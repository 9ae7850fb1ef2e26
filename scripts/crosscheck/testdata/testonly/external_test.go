package testonly_test

import (
	"syscall"
	"testing"

	"example.com/testonly"
)

func TestExternal(t *testing.T) {
	if testonly.Answer != 42 || syscall.Gettid() == 0 {
		t.Fatal("wrong")
	}
}
