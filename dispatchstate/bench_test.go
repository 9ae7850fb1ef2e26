package dispatchstate_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's CPU time so far (user and system): what a write
// costs the process, which wall time (waits for the disk) does not say.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWrite is the cost of one state file write (wall time, and the
// process's CPU time: cpu-µs/op), durable (Write: the
// file and the folder synced) and atomic only (WriteAtomic), of a waiting
// dispatch's state, rewritten in place as an owner does. Its figures depend
// on the file system the temporary folder is on.
func BenchmarkWrite(b *testing.B) {
	for _, mode := range []string{"temporary", "spare"} {
		b.Run(mode, func(b *testing.B) {
			st := validState()
			st.Prompt = "review the change in pkg/x and write what you find"
			dir := b.TempDir()
			path := filepath.Join(dir, "s.json")
			write := st.Write
			if mode == "spare" {
				write = func(path string) error { return st.Rewrite(path, filepath.Join(dir, ".s.json.spare")) }
			}
			b.ReportAllocs()
			cpu := cpuTime(b)
			for b.Loop() {
				if err := write(path); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// BenchmarkMarshal is the cost of a state file's bytes.
func BenchmarkMarshal(b *testing.B) {
	st := validState()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
