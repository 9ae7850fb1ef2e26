package handoff_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/provider"
)

// deps is what pkg imports from this module, directly or not.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var mine []string
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/handoff-fsm/handoff-fsm" || strings.HasPrefix(dep, "github.com/handoff-fsm/handoff-fsm/") {
			mine = append(mine, dep)
		}
	}
	return mine
}

// The engine and the tmux driver never name a provider: everything that
// knows one agent CLI's screens is chosen in provider/ by the command (or
// the library user).
func TestEngineAndDriverImportNoProvider(t *testing.T) {
	const mod = "github.com/handoff-fsm/handoff-fsm/"
	var providers []string
	for _, p := range append(provider.Names(), "providerfile", "provider") {
		providers = append(providers, mod+p)
	}
	for _, pkg := range []string{"./fsm", "./tmuxdriver", "./tmuxcontrol", "./responsefile", "./trace", "./screen", "."} {
		for _, dep := range deps(t, pkg) {
			for _, p := range providers {
				if dep == p || strings.HasPrefix(dep, p+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// A provider package holds its CLI's rules only, on the shared toolkit:
// it imports the vocabulary (the root) and screen/, never another
// provider, the registry, the driver or the engine, but for a fork: a CLI
// that draws its parent's screen (Kilo Code, OpenCode's) takes the
// parent's rules whole instead of a copy. The registry stands above the
// providers and below the driver: it imports no tmux. The providers are
// the registry's: each is the package of its name.
func TestProvidersStandOnTheToolkitOnly(t *testing.T) {
	const mod = "github.com/handoff-fsm/handoff-fsm"
	allowed := []string{mod, mod + "/screen"}
	forkOf := map[string]string{"kilo": "opencode"}
	for _, p := range provider.Names() {
		for _, dep := range deps(t, "./"+p) {
			if parent, ok := forkOf[p]; ok && dep == mod+"/"+parent {
				continue
			}
			if dep != mod+"/"+p && !slices.Contains(allowed, dep) {
				t.Errorf("%s depends on %s: a provider holds its rules on screen/ only", p, dep)
			}
		}
	}
	for _, dep := range deps(t, "./provider") {
		for _, above := range []string{"/tmuxdriver", "/tmuxcontrol", "/fsm", "/serve", "/cmd/"} {
			if strings.HasPrefix(dep, mod+above) {
				t.Errorf("provider depends on %s, which stands above it", dep)
			}
		}
	}
}

// Every handoff-fsm process pays for what the binary links, at start: a
// send --server client too. gRPC and the protobuf runtime (which the
// upstream OTLP exporter brought, tracing on or not) stay out; the
// OTLP/HTTP exporter writes the wire format itself (tracing/otlphttp).
func TestTheCommandLinksNoGRPCOrProtobuf(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./cmd/handoff-fsm").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"google.golang.org/grpc", "google.golang.org/protobuf", "go.opentelemetry.io/proto/"} {
			if strings.HasPrefix(dep, heavy) {
				t.Errorf("handoff-fsm links %s", dep)
			}
		}
	}
}
