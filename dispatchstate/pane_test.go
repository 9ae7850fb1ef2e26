package dispatchstate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
)

// A state file written by the release before Pane (its pane's four keys
// spelled out in State) still loads, names the same pane, and is written
// back with the same keys and values.
func TestAStateFileFromBeforePaneStillLoads(t *testing.T) {
	old, err := os.ReadFile("testdata/state-before-pane.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := dispatchstate.Parse(old)
	if err != nil {
		t.Fatalf("the previous release's state file does not load: %v", err)
	}
	want := dispatchstate.Pane{Target: "%3", SocketPath: "/tmp/agents.sock", Provider: "claude"}
	if st.Pane != want {
		t.Fatalf("pane %+v, want %+v", st.Pane, want)
	}
	b, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var was, is map[string]any
	if err := json.Unmarshal(old, &was); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &is); err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(was)
	ib, _ := json.Marshal(is)
	if !bytes.Equal(wb, ib) {
		t.Errorf("written back differently:\nwas %s\nis  %s", wb, ib)
	}
}

// A pane's server named twice is refused naming the field.
func TestAPaneOnTwoServersIsRefused(t *testing.T) {
	old, err := os.ReadFile("testdata/state-before-pane.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(old, &m); err != nil {
		t.Fatal(err)
	}
	m["socket"] = "agents"
	b, _ := json.Marshal(m)
	_, err = dispatchstate.Parse(b)
	if !errors.Is(err, dispatchstate.ErrMalformed) || !bytes.Contains([]byte(err.Error()), []byte("socket_path")) {
		t.Fatalf("socket and socket_path: %v, want ErrMalformed naming socket_path", err)
	}
}

// The pane's flags fill the pane, the provider's default the registry's.
func TestPaneFlagsFillThePane(t *testing.T) {
	var p dispatchstate.Pane
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	p.Bind(fs)
	if p.Provider != p.ProviderName() || p.Provider == "" {
		t.Fatalf("default provider %q", p.Provider)
	}
	if err := fs.Parse([]string{"--target", "w:1.0", "--socket-path", "/s", "--provider", "auto"}); err != nil {
		t.Fatal(err)
	}
	if want := (dispatchstate.Pane{Target: "w:1.0", SocketPath: "/s", Provider: "auto"}); p != want {
		t.Fatalf("%+v, want %+v", p, want)
	}
}
