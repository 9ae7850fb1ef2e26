package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestEndCheckProbe (HANDOFF_ENDCHECK_PROBE=DIR) dispatches prompts to
// each real CLI — once, and with the test itself submitting the same
// text a second time or a paste placeholder while the dispatch waits —
// and writes the screen, with its history, after each: how the
// providers' Submitted fixtures (testdata/submitted) are taken.
func TestEndCheckProbe(t *testing.T) {
	dir := os.Getenv("HANDOFF_ENDCHECK_PROBE")
	if dir == "" {
		t.Skip("HANDOFF_ENDCHECK_PROBE=DIR takes the end-check captures")
	}
	eachConformer(t, func(t *testing.T, c conformer) {
		if only := os.Getenv("HANDOFF_DELIVERY_ONLY"); only != "" && !strings.Contains(only, c.cli.Name) {
			t.Skip("HANDOFF_DELIVERY_ONLY=" + only)
		}
		r := c.start(t, setup{Terminal: tmuxTerminal})
		out := filepath.Join(dir, c.cli.Name)
		_ = os.MkdirAll(out, 0o755)
		for _, pc := range []struct{ name, prompt, extra string }{
			{"short-once", "Analyse the project briefly, please.", ""},
			// The same prompt dispatched again, right after: a CLI that folds
			// it shows the same fold twice, each dispatch once.
			{"short-once-again", "Analyse the project briefly, please.", ""},
			// Ordinary single submissions of testkit's other paste shapes:
			// what a reader must never call bad. Before the rows that make
			// the CLI take something else, which a loaded CLI may leave
			// unanswered (the rig is not drained after a failed row).
			{"three-lines-once", testkit.PastePromptText("three-lines"), ""},
			{"wide-line-once", testkit.PastePromptText("wide-line"), ""},
			{"zero-width-once", testkit.PastePromptText("zero-width"), ""},
			{"lines-4k-once", testkit.PastePromptText("lines-4k"), ""},
			{"short-twice", "Review the change, please.", "again"},
			{"lines-4k-twice", testkit.PastePromptText("lines-4k"), "again"},
			{"lines-4k-placeholder", testkit.PastePromptText("lines-4k"), "[Pasted Content 4150 chars]"},
			// Last: a CLI may refuse it (Copilot CLI saves a paste over 20 KB
			// to a file).
			{"line-20000-once", testkit.PastePromptText("line-20000"), ""},
		} {
			r := r.in(t)
			r.drained()
			if pc.extra == "" {
				r.model.Script(fakemodel.WriteResponse("probe answer "+pc.name), fakemodel.Answer("Written."))
			} else {
				r.model.Script(fakemodel.Answer("First look.").After(3*time.Second), fakemodel.WriteResponse("probe answer "+pc.name), fakemodel.Answer("Written."))
			}
			var once sync.Once
			rs := &testkit.Sends{}
			d := r.sendThrough(rs.Wrap, "tester", pc.prompt, c.config(true), func(p fsm.Poll) {
				if pc.extra == "" || p.Status.Quiet() {
					return
				}
				once.Do(func() {
					ctx := context.Background()
					if pc.extra == "again" {
						_ = r.cli.Paste(ctx, rs.Last())
						time.Sleep(time.Second)
					} else {
						_ = r.cli.Keys(ctx, "-l", pc.extra)
					}
					time.Sleep(300 * time.Millisecond)
					_ = r.cli.Keys(ctx, "Enter")
				})
			})
			time.Sleep(2 * time.Second)
			for _, colour := range []bool{false, true} {
				args := []string{"capture-pane", "-p", "-J", "-S", "-3000", "-t", r.cli.Target}
				name := pc.name + ".plain.txt"
				if colour {
					args = append(args, "-e")
					name = pc.name + ".txt"
				}
				s, err := r.cli.Server().Run(context.Background(), nil, args...)
				if err != nil {
					t.Fatal(err)
				}
				_ = os.WriteFile(filepath.Join(out, name), []byte(s), 0o644)
			}
			_ = os.WriteFile(filepath.Join(out, pc.name+".prompt"), []byte(rs.Last()), 0o644)
			_ = os.WriteFile(filepath.Join(out, pc.name+".result"), []byte(fmt.Sprintf("err=%v\ncontent=%q\nturns=%d\n", d.err, d.res.Content, len(r.model.Turns()))), 0o644)
		}
	})
}
