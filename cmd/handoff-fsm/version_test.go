package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/version"
)

func TestVersionCommandAndFlag(t *testing.T) {
	want := version.Get()
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, stderr := runSub(t, "", args...)
		if code != exitOK || stdout != want.String()+"\n" || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, stdout, stderr, want.String())
		}
	}
	code, stdout, _ := runSub(t, "", "version", "--json")
	var got version.Info
	if err := json.Unmarshal([]byte(stdout), &got); code != exitOK || err != nil || got != want {
		t.Errorf("version --json: exit %d, %+v (%v); want %+v", code, got, err, want)
	}
	if !strings.HasPrefix(want.String(), "handoff-fsm ") || want.Go == "" || want.Version == "" {
		t.Errorf("the build says %q", want.String())
	}
	if code, _, stderr := runSub(t, "", "version", "extra"); code != exitUsage {
		t.Errorf("version extra: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
}

// send --json carries the build that dispatched.
func TestSendJSONCarriesTheVersion(t *testing.T) {
	t.Parallel()
	a := startAgent(t, quickAgent...)
	stdout, stderr, code := cli(t, "", a.sendArgs(append(append([]string{}, quickWait...), "--json", "--prompt", "which build?")...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rep := decodeReport(t, stdout)
	if rep.Version == nil || *rep.Version != version.Get() {
		t.Errorf("the result's version is %+v, want %+v", rep.Version, version.Get())
	}
}
