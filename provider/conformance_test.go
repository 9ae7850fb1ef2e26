package provider_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/providerfile"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// leaders are the characters that, first in a message, open another mode
// of each CLI's composer, as tried on the real CLIs (see each provider's
// Composer): the lead line must guard every one of them.
var leaders = map[string]string{"claude": "!/#", "cline": "/", "codex": "!/", "continue": "!/", "copilot": "!/?&$", "droid": "!/", "gemini": "!/?", "kilo": "!/", "kimi": "!/", "omp": "!$#/", "opencode": "!/", "pi": "!/", "qwen": "!/?"}

// Every provider of the registry passes the conformance checks: it says
// what it reads, its composer reads its real screens after a paste as they
// are (its testdata/composer) and gives every mode character the lead line,
// and its real screens read as the manifest says.
func TestEveryProviderConforms(t *testing.T) {
	for _, p := range provider.All() {
		t.Run(p.Name, func(t *testing.T) {
			want, ok := leaders[p.Name]
			if !ok {
				t.Fatalf("no leaders known for %s: say which characters open another mode of its composer", p.Name)
			}
			conformance.CheckProvider(t, p, conformance.Suite{Leaders: want,
				Composer: filepath.Join("..", p.Name, "testdata", "composer"), Screens: allShown(t, realScreens[p.Name])})
		})
	}
}

// allShown are the screens of dir and of each terminal and mode folder
// under it (conformance.Dirs), named by their folder.
func allShown(t *testing.T, dir string) []conformance.Shown {
	var all []conformance.Shown
	for _, d := range conformance.Dirs(dir) {
		for _, sc := range conformance.ShownIn(t, d) {
			sc.Name = filepath.Join(strings.TrimPrefix(d, dir), sc.Name)
			all = append(all, sc)
		}
	}
	return all
}

// A seventh provider is one value: here the simulated agent's CLI,
// described in a provider file (providerfile/testdata/simagent.toml), as
// the screen.Provider the registry would list. It passes the checks every
// shipped provider passes, on the simulated agent's screens; in the
// registry it would be one more entry (docs/providers.md).
func TestASeventhProviderIsOneValue(t *testing.T) {
	described, err := providerfile.Load(filepath.Join("..", "providerfile", "testdata", "simagent.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var seventh screen.Provider = described.Provider()
	if seventh.Name != "simagent" || seventh.CLI == "" {
		t.Fatalf("the file's provider is %q (%q)", seventh.Name, seventh.CLI)
	}
	conformance.CheckProvider(t, seventh, conformance.Suite{Leaders: providerfile.DefaultLeaders, Screens: simagentScreens()})
}

// simagentScreens are the simulated agent's screens in each phase of a
// turn, in two sizes.
func simagentScreens() []conformance.Shown {
	now := time.Now()
	var out []conformance.Shown
	for _, size := range [][2]int{{40, 100}, {12, 40}} {
		add := func(name string, s simagent.Screen, st handoff.Status) {
			out = append(out, conformance.Shown{Name: fmt.Sprintf("%s %dx%d", name, size[0], size[1]),
				Capture: strings.Join(s.Render(now, size[0], size[1]), "\n") + "\n", Title: s.Title(now), Status: st})
		}
		fresh := simagent.Screen{Model: "sim-model", Effort: "medium", Cwd: "/tmp/work",
			Transcript: []string{">_ Simulated Codex (handoff-fsm sim-agent, scenario normal)"}}
		add("fresh", fresh, handoff.StatusIdle)
		working := fresh
		working.Transcript = append(append([]string(nil), fresh.Transcript...), "", "› Say hello")
		working.Busy, working.Indicator, working.Since = true, "Working", now.Add(-2*time.Second)
		add("working", working, handoff.StatusProcessing)
		asking := working
		asking.Indicator = ""
		asking.Menu = simagent.ApprovalMenu("touch /tmp/x")
		add("asking", asking, handoff.StatusWaitingUserAnswer)
		done := working
		done.Busy, done.Indicator = false, ""
		done.Transcript = append(append([]string(nil), working.Transcript...), "", "• Hello!", "", "  Worked for 4s • 05:01")
		add("done", done, handoff.StatusCompleted)
	}
	return out
}
