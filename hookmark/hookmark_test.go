package hookmark

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// The JSON Claude Code 2.1.330 sent its hooks in an offline session
// (recorded; ids shortened).
const (
	claudeStop        = `{"session_id":"1b74","transcript_path":"/h/.claude/projects/-w/1b74.jsonl","cwd":"/w","prompt_id":"898e","permission_mode":"bypassPermissions","effort":{"level":"medium"},"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Hook test answer.","background_tasks":[],"session_crons":[]}`
	geminiAfterAgent  = `{"session_id":"5f0c","transcript_path":"/h/.gemini/tmp/w/chats/session.json","cwd":"/w","hook_event_name":"AfterAgent","timestamp":"2026-11-23T19:00:00.000Z","prompt":"Test it.","prompt_response":"Hook test answer.","stop_hook_active":false}`
	geminiBeforeAgent = `{"session_id":"5f0c","cwd":"/w","hook_event_name":"BeforeAgent","prompt":"Test it.\nmore"}`
	claudeStopFailure = `{"session_id":"1b74","cwd":"/w","hook_event_name":"StopFailure","error":"server_error","last_assistant_message":"API Error: 500 Internal server error."}`
	claudePermission  = `{"session_id":"1b74","cwd":"/w","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"echo hi > x.txt"},"permission_suggestions":[]}`
	claudeSubmit      = `{"session_id":"1b74","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"Write x\nand more"}`
	// Cline 3.0.65's TaskComplete hook, as the real CLI passed it.
	clineTaskComplete = `{"clineVersion":"","timestamp":"2026-11-27T14:11:12.942Z","taskId":"conv_1795788671668_q2zdej4","sessionContext":{"rootSessionId":"1795788647964_va6u5"},"workspaceRoots":["/w"],"workspaceInfo":{"rootPath":"/w","hint":"w"},"userId":"unknown","agent_id":"agent_1795788650081_iewoo2","parent_agent_id":null,"hookName":"agent_end","iteration":1,"turn":{"outputText":"hooked3","status":"completed"},"taskComplete":{"taskMetadata":{}}}`
	codexNotify       = `{"type":"agent-turn-complete","thread-id":"t1","turn-id":"u1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"Done."}`
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Marker
	}{
		{claudeStop, Marker{Event: Stopped, Hook: "Stop", At: now, Session: "1b74", Cwd: "/w", LastMessage: "Hook test answer."}},
		{claudeStopFailure, Marker{Event: Failed, Hook: "StopFailure", At: now, Session: "1b74", Cwd: "/w", LastMessage: "API Error: 500 Internal server error.", Error: "server_error"}},
		{claudePermission, Marker{Event: Waiting, Hook: "PermissionRequest", At: now, Session: "1b74", Cwd: "/w", Detail: "Bash"}},
		{claudeSubmit, Marker{Event: Submitted, Hook: "UserPromptSubmit", At: now, Session: "1b74", Cwd: "/w", Detail: "Write x"}},
		{`{"hook_event_name":"UserPromptSubmit","prompt":"\n\n<pasted_content id=\"3fbb\">\nTest it.\n\nline 3\n</pasted_content id=\"3fbb\">\n"}`, Marker{Event: Submitted, Hook: "UserPromptSubmit", At: now, Detail: "Test it."}},
		{clineTaskComplete, Marker{Event: Stopped, Hook: "agent_end", At: now, Session: "conv_1795788671668_q2zdej4", LastMessage: "hooked3"}},
		{`{"hookName":"agent_error","taskId":"c1"}`, Marker{Event: Failed, Hook: "agent_error", At: now, Session: "c1"}},
		{codexNotify, Marker{Event: Stopped, Hook: "agent-turn-complete", At: now, Session: "t1", Cwd: "/w", LastMessage: "Done."}},
		{geminiAfterAgent, Marker{Event: Stopped, Hook: "AfterAgent", At: now, Session: "5f0c", Cwd: "/w", LastMessage: "Hook test answer."}},
		{geminiBeforeAgent, Marker{Event: Submitted, Hook: "BeforeAgent", At: now, Session: "5f0c", Cwd: "/w", Detail: "Test it."}},
		// Copilot CLI 1.0.102's agentStop, as its hook got it.
		{`{"sessionId":"2076","timestamp":1795788452269,"cwd":"/w","transcriptPath":"/h/.copilot/session-state/2076/events.jsonl","stopReason":"end_turn","stop_hook_active":false}`, Marker{Event: Stopped, Hook: "agentStop", At: now, Session: "2076", Cwd: "/w"}},
		{`{"hook_event_name":"PreCompact"}`, Marker{Event: Other, Hook: "PreCompact", At: now}},
		{`{"hook_event_name":"StopFailure","error":{"type":"overloaded_error"},"error_details":"529"}`, Marker{Event: Failed, Hook: "StopFailure", At: now, Error: `{"type":"overloaded_error"}: 529`}},
	} {
		got, err := Parse(strings.NewReader(tc.in), now)
		if err != nil || got != tc.want {
			t.Errorf("%s:\ngot  %+v, %v\nwant %+v", tc.in, got, err, tc.want)
		}
	}
	if _, err := Parse(strings.NewReader(`{"x":1}`), now); !errors.Is(err, ErrNotAHook) {
		t.Errorf("no event name: %v", err)
	}
	if _, err := Parse(strings.NewReader(`not json`), now); err == nil {
		t.Error("bad JSON accepted")
	}
}

func TestWriteAndRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "events", "analyst")
	for i, in := range []string{claudeSubmit, claudePermission, `{"hook_event_name":"PreCompact"}`, claudeStop} {
		m, err := Parse(strings.NewReader(in), now.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		path, err := Write(dir, m)
		if err != nil {
			t.Fatal(err)
		}
		if (path == "") != (m.Event == Other) {
			t.Fatalf("%s: path %q", m.Hook, path)
		}
	}
	m, ok, err := Read(dir, Stopped)
	if err != nil || !ok || m.LastMessage != "Hook test answer." || !m.At.Equal(now.Add(3*time.Second)) {
		t.Fatalf("Read(Stopped) = %+v, %v, %v", m, ok, err)
	}
	if _, ok, err := Read(dir, Failed); ok || err != nil {
		t.Fatalf("Read(Failed) = %v, %v; want none", ok, err)
	}
	evs, err := Events(dir)
	if err != nil || len(evs) != 4 || evs[2].Event != Other || evs[3].Event != Stopped {
		t.Fatalf("Events = %+v, %v", evs, err)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("left behind: %s", e.Name())
		}
	}
}

// Markers written concurrently (hooks of several events at once) are all
// in events.jsonl, one a line, and the newest file is always whole.
func TestConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			m, _ := Parse(strings.NewReader(claudeStop), now.Add(time.Duration(i)))
			if _, err := Write(dir, m); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	evs, err := Events(dir)
	if err != nil || len(evs) != 20 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	if _, ok, err := Read(dir, Stopped); !ok || err != nil {
		t.Fatalf("Read: %v %v", ok, err)
	}
}
