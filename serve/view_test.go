package serve_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// A view is built on the dispatch's trace.Report, and its JSON keeps the
// API's keys: "error" the message, "error_kind" the report's kind,
// "content" only in a whole view (a list's views carry none). A client
// reads it back the same.
func TestAViewKeepsTheAPIsKeysAndReadsBack(t *testing.T) {
	exit := 4
	v := serve.View{ID: "x", State: "Failed", Final: true, Exit: &exit, Error: "the agent's screen showed an error",
		Report: trace.Report{Outcome: "failed", Error: "terminal_error", At: 1.5,
			Transitions: []trace.Transition{{At: 1.5, From: "Working", To: "Failed", Event: "error", Status: "error"}}},
		Role: "analyst", Pane: dispatchstate.Pane{Target: "%3", Socket: "agents", Provider: "codex"}, Workdir: "/w"}
	list, whole := v, v
	list.Transitions = nil
	whole.Whole = true
	var keys map[string]any
	b, _ := json.Marshal(list)
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	if keys["error"] != v.Error || keys["error_kind"] != "terminal_error" || keys["outcome"] != "failed" || keys["target"] != "%3" || keys["socket"] != "agents" {
		t.Errorf("a list's view is %s", b)
	}
	if _, ok := keys["content"]; ok {
		t.Errorf("a list's view carries content: %s", b)
	}
	b, _ = json.Marshal(whole)
	var back serve.View
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Whole || !reflect.DeepEqual(back, whole) {
		t.Errorf("read back\n%+v\nwant\n%+v\nfrom %s", back, whole, b)
	}
	if f := back.Finished(); f.Exit != 4 || f.Err() == nil || f.Report.Error != "terminal_error" {
		t.Errorf("its ending: %+v", f)
	}
}
