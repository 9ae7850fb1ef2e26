package responsefile_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// childEnv makes this test binary a child process for the tests that need
// one to die holding a lock, or in the middle of Consume: its value is
// "<mode>:<argument>".
const childEnv = "HFREL_RESPONSEFILE_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		mode, arg, _ := strings.Cut(v, ":")
		var err error
		switch mode {
		case "lock":
			err = childLock(arg)
		case "consume":
			err = childConsume(arg)
		default:
			err = fmt.Errorf("unknown child mode %q", mode)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
