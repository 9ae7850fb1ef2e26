package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/hookmark"
)

func TestHookWritesMarkers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "events")
	var stdout, stderr bytes.Buffer
	stop := `{"session_id":"s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"All done."}`
	if code := run(context.Background(), []string{"hook", "--dir", dir}, strings.NewReader(stop), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout %q: a Stop hook's stdout is read by Claude Code", stdout.String())
	}
	m, ok, err := hookmark.Read(dir, hookmark.Stopped)
	if !ok || err != nil || m.LastMessage != "All done." {
		t.Fatalf("marker %+v, %v, %v", m, ok, err)
	}
	// Codex's notify passes the event as the last argument.
	t.Setenv(hookDirEnv, dir)
	notify := `{"type":"agent-turn-complete","last-assistant-message":"Codex done."}`
	if code := run(context.Background(), []string{"hook", notify}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if m, _, _ := hookmark.Read(dir, hookmark.Stopped); m.LastMessage != "Codex done." {
		t.Fatalf("marker %+v", m)
	}
}

// A hook that fails must never exit 2: Claude Code takes 2 from a Stop hook
// as "do not stop".
func TestHookNeverExitsTwo(t *testing.T) {
	t.Setenv(hookDirEnv, "")
	for name, args := range map[string][]string{
		"no dir":   {"hook"},
		"bad flag": {"hook", "--nope"},
		"bad json": {"hook", "--dir", t.TempDir(), "not json"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader("{}"), &stdout, &stderr)
		if code == exitOK || code == 2 {
			t.Errorf("%s: exit %d, want a failure other than 2", name, code)
		}
	}
}
