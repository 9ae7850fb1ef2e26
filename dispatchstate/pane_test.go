package dispatchstate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/provider"
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

// A --pane of a program that gives each role its pane: the target, then
// the provider (the default when left out) and the socket; a provider no
// one knows, or no role, is refused.
func TestParseRolePane(t *testing.T) {
	for _, c := range []struct {
		in   string
		role string
		want dispatchstate.Pane
	}{
		{"analyst=%1", "analyst", dispatchstate.Pane{Target: "%1", Provider: provider.Default}},
		{"tester=agents:0.1,claude", "tester", dispatchstate.Pane{Target: "agents:0.1", Provider: "claude"}},
		{"programmer=host/%3,gemini,team", "programmer", dispatchstate.Pane{Target: "host/%3", Provider: "gemini", Socket: "team"}},
		{"programmer=%3,,team", "programmer", dispatchstate.Pane{Target: "%3", Provider: provider.Default, Socket: "team"}},
	} {
		role, p, err := dispatchstate.ParseRolePane(c.in)
		if err != nil || role != c.role || p != c.want {
			t.Errorf("%q: %q %+v %v; want %q %+v", c.in, role, p, err, c.role, c.want)
		}
	}
	for _, bad := range []string{"%1", "analyst=", "analyst=%1,vim"} {
		if _, _, err := dispatchstate.ParseRolePane(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
