package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// TestPasteProbe (HANDOFF_PASTE_PROBE=DIR) pastes prompts of several
// shapes into each real CLI and writes every distinct screen it shows
// while the paste arrives: how each provider's ReadPaste fixtures are
// taken.
func TestPasteProbe(t *testing.T) {
	dir := os.Getenv("HANDOFF_PASTE_PROBE")
	if dir == "" {
		t.Skip("HANDOFF_PASTE_PROBE=DIR takes the paste captures")
	}
	prompts := testkit.PastePrompts()
	eachConformer(t, func(t *testing.T, c conformer) {
		if only := os.Getenv("HANDOFF_DELIVERY_ONLY"); only != "" && !strings.Contains(only, c.cli.Name) {
			t.Skip("HANDOFF_DELIVERY_ONLY=" + only)
		}
		r := c.start(t, setup{Terminal: tmuxTerminal})
		cl, _ := provider.Lookup(c.cli.Name)
		out := filepath.Join(dir, c.cli.Name)
		_ = os.MkdirAll(out, 0o755)
		ctx := context.Background()
		for _, p := range prompts {
			if only := os.Getenv("HANDOFF_PASTE_ONLY"); only != "" && only != p.Name {
				continue
			}
			text := p.Text
			if cp, ok := cl.(interface{ Inert(string) string }); ok {
				text = cp.Inert(text)
			}
			if err := r.cli.Paste(ctx, text); err != nil {
				t.Fatal(err)
			}
			prev, n := "", 0
			start := time.Now()
			for time.Since(start) < 8*time.Second {
				s, _, _ := r.cli.CapturePlain(ctx)
				if s != prev {
					_ = os.WriteFile(filepath.Join(out, fmt.Sprintf("%s-%02d-%04dms.txt", p.Name, n, time.Since(start).Milliseconds())), []byte(s), 0o644)
					prev, n = s, n+1
				}
				time.Sleep(40 * time.Millisecond)
			}
			if c.cli.Name == "pi" {
				_ = r.cli.Keys(ctx, "C-c")
				time.Sleep(500 * time.Millisecond)
			} else if cm, ok := cl.(interface{ ClearKeys(string) []string }); ok {
				for i := 0; i < 1; i++ {
					s, _, _ := r.cli.CapturePlain(ctx)
					for _, k := range cm.ClearKeys(s) {
						_ = r.cli.Keys(ctx, k)
						time.Sleep(150 * time.Millisecond)
					}
					time.Sleep(500 * time.Millisecond)
				}
			}
			s, _, _ := r.cli.CapturePlain(ctx)
			_ = os.WriteFile(filepath.Join(out, p.Name+"-cleared.txt"), []byte(s), 0o644)
		}
	})
}
