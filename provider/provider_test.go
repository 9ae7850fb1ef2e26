package provider_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/provider"
)

func TestEveryProviderClassifiesAScreen(t *testing.T) {
	for _, name := range provider.Names() {
		cl, err := provider.Lookup(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Any classifier must return a known status for an empty screen
		// rather than panic.
		if st := cl.Classify("", "").Status; st == "" {
			t.Errorf("%s: empty status for an empty screen", name)
		}
	}
	if !slices.Contains(provider.Names(), provider.Default) {
		t.Fatalf("the default provider %q is not registered", provider.Default)
	}
}

func TestEmptyNameIsTheDefault(t *testing.T) {
	a, err := provider.Lookup("")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := provider.Lookup(provider.Default)
	screen := "› Reply with READY\n\n• READY\n\n›\n  100% context left\n"
	if !reflect.DeepEqual(a.Classify(screen, ""), b.Classify(screen, "")) {
		t.Fatal("the empty name is not the default provider")
	}
}

func TestUnknownProviderNamesTheKnownOnes(t *testing.T) {
	_, err := provider.Lookup("gemini")
	if !errors.Is(err, provider.ErrUnknown) {
		t.Fatalf("got %v, want ErrUnknown", err)
	}
	for _, n := range provider.Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("message %q does not name %s", err, n)
		}
	}
}
