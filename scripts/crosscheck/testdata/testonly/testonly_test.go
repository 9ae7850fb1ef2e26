package testonly

import (
	"syscall"
	"testing"
)

func TestAnswer(t *testing.T) {
	_ = syscall.SysProcAttr{Cloneflags: 0}
	if Answer != 42 {
		t.Fatal("wrong")
	}
}
