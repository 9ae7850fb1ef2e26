package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Suite is what CheckProvider is given besides the provider value: what
// its composer must guard, and screens of its CLI.
type Suite struct {
	// Leaders are the characters that, first in a message, open another
	// mode of the CLI's composer: each must get the lead line.
	Leaders string
	// Composer is the folder of real screens taken after a paste
	// (testdata/composer; see CheckComposer), "" when there is none.
	Composer string
	// Screens are captures of the CLI and the status each shows.
	Screens []Shown
}

// Shown is a capture of an agent CLI, its pane title and the status it
// shows; Name says which, in an error.
type Shown struct {
	Name, Capture, Title string
	Status               handoff.Status
}

// ShownIn reads the screens of dir's manifest (LoadScreens) with their
// captures.
func ShownIn(t *testing.T, dir string) []Shown {
	t.Helper()
	var out []Shown
	for _, sc := range LoadScreens(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, sc.File))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Shown{Name: sc.File, Capture: string(b), Title: sc.Title, Status: sc.Status})
	}
	return out
}

// CheckProvider is what every provider value must pass, shipped or not: it
// says what it reads (name, CLI, version) and has every rule; it is a
// handoff.Classifier and a handoff.Composer; its composer keeps a prompt a
// message (CheckComposer, or CheckInert without screens); an empty screen
// is an error and a screen with no reply says so with an error that wraps
// screen.ErrNoAssistantMessage and names the provider; each of the suite's
// screens reads as its status, within CheckClassification's rules.
func CheckProvider(t *testing.T, p screen.Provider, s Suite) {
	t.Helper()
	if p.Name == "" || p.CLI == "" || p.Version == "" || p.Read == nil || p.Last == nil || p.Recognize == nil {
		t.Fatalf("incomplete provider: name %q, CLI %q, version %q, or a rule missing", p.Name, p.CLI, p.Version)
	}
	var c handoff.Classifier = p
	comp, ok := c.(handoff.Composer)
	if !ok {
		t.Fatal("the provider is no handoff.Composer")
	}
	if s.Composer != "" {
		CheckComposer(t, comp, s.Composer, s.Leaders)
	} else {
		CheckInert(t, comp, s.Leaders)
	}
	if got := CheckClassification(t, c, "", "", screen.ErrNoAssistantMessage); got.Status != handoff.StatusError {
		t.Errorf("an empty screen reads as %s", got.Status)
	}
	if _, err := c.LastMessage(""); !errors.Is(err, screen.ErrNoAssistantMessage) || !strings.HasPrefix(err.Error(), p.Name+": ") {
		t.Errorf("the last message of an empty screen: %v; want screen.ErrNoAssistantMessage, named %s", err, p.Name)
	}
	for _, sc := range s.Screens {
		got := CheckClassification(t, c, sc.Capture, sc.Title, screen.ErrNoAssistantMessage)
		if got.Status != sc.Status {
			t.Errorf("%s: %s (%s), want %s", sc.Name, got.Status, got.Reason, sc.Status)
		}
	}
}
