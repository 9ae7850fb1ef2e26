package main

import (
	"path/filepath"
	"testing"
)

// `send --record` promises that a replay of the trace ends as the live
// dispatch did. Each way a live wait ends on a real pane (every row of the
// exit-code table a dispatch can reach; the unusable response file is
// TestSendRecordNeverLeaksHangsOrMovesAnUnusableResponseFile) is recorded
// and replayed here, and the two endings must be the same.
func TestEveryRecordedEndingReplaysTheSame(t *testing.T) {
	quick := []string{"--startup", "300ms", "--work", "600ms", "--stream", "200ms"}
	cases := map[string]struct {
		sim, args []string
		code      int
	}{
		"done from the file":  {sim: quick, code: exitOK},
		"fallback":            {sim: append([]string{"--scenario", "never-writes"}, quick...), args: []string{"--strict=false"}, code: exitFallback},
		"terminal error":      {sim: append([]string{"--scenario", "crash"}, quick...), code: exitTerminal},
		"no response file":    {sim: append([]string{"--scenario", "never-writes"}, quick...), code: exitNoFile},
		"timeout":             {sim: []string{"--startup", "200ms", "--work", "30s"}, args: []string{"--timeout", "3s"}, code: exitTimeout},
		"needs the user":      {sim: append([]string{"--scenario", "asks"}, quick...), args: []string{"--auto-answer", "n", "--max-answers", "1", "--answer-cooldown", "300ms"}, code: exitNeedsUser},
		"reminded, then done": {sim: append([]string{"--scenario", "forgets"}, quick...), args: []string{"--reminders", "1"}, code: exitOK},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := startAgent(t, tc.sim...)
			rec := filepath.Join(t.TempDir(), "trace.jsonl")
			args := append(a.sendArgs("--poll", "250ms", "--idle-grace", "2s", "--json", "--record", rec, "--prompt", "do it"), tc.args...)
			stdout, stderr, code := cli(t, "", args...)
			if code != tc.code {
				t.Fatalf("live: exit %d, want %d\n%s", code, tc.code, stderr)
			}
			replaysAsLive(t, rec, decodeReport(t, stdout))
		})
	}
}
