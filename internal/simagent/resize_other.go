//go:build !unix

package simagent

import "os"

// resizeSignals is empty where there is no SIGWINCH: the agent redraws on
// its tick only.
func resizeSignals() []os.Signal { return nil }
