package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// boardRow is one pane of the board, and the JSON line written when piped.
type boardRow struct {
	Pane     string         `json:"pane"`   // %id
	Target   string         `json:"target"` // session:window.pane
	Provider string         `json:"provider"`
	Status   handoff.Status `json:"status"`
	Since    time.Time      `json:"since"` // when the pane entered Status
	Reason   string         `json:"reason,omitempty"`
	// Note says which dispatch holds the pane, or timed out on it.
	Note string `json:"note,omitempty"`
}

// runBoard watches every pane of a tmux server: one line per pane —
// provider, status, how long in it — redrawn live on a terminal, and a JSON
// line per change when piped. The provider is the one --provider names, or
// with "auto" the one the pane's command names (codex, claude), else the
// default.
func runBoard(ctx context.Context, srv tmuxdriver.Server, providerName string, history int, interval time.Duration, stdout, stderr io.Writer) int {
	live := isTerminal(stdout)
	rows := map[string]*boardRow{}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		panes, err := listPanes(ctx, srv)
		if ctx.Err() != nil {
			return exitOK
		}
		if err != nil {
			fmt.Fprintf(stderr, "handoff-fsm watch: %v\n", err)
			return exitFailure
		}
		// Which dispatch holds each pane, or timed out on it: one tmux call.
		ids, _ := srv.Identities(ctx, nil)
		seen := map[string]bool{}
		for _, p := range panes {
			seen[p.id] = true
			name := providerName
			if name == "auto" {
				name = providerFor(p.command)
			}
			cl, err := provider.Lookup(name)
			if err != nil {
				fmt.Fprintf(stderr, "handoff-fsm watch: --provider: %v\n", err)
				return exitUsage
			}
			pane, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: p.id, Classifier: cl, History: history})
			if err != nil {
				continue
			}
			snap, err := pane.Observe(ctx)
			st, reason := snap.Classification.Status, snap.Classification.Reason
			if err != nil {
				st, reason = handoff.StatusError, err.Error()
			}
			note := ""
			if id, ok := ids[p.id]; ok && err == nil {
				note = dispatchesOn(id, st).Note
			}
			r := rows[p.id]
			if r == nil || r.Status != st || r.Provider != name || r.Note != note {
				since := time.Now()
				if r != nil && r.Status == st {
					since = r.Since
				}
				r = &boardRow{Pane: p.id, Target: p.target, Provider: name, Status: st, Since: since, Reason: reason, Note: note}
				rows[p.id] = r
				if !live {
					if err := json.NewEncoder(stdout).Encode(r); err != nil {
						return exitFailure
					}
				}
			}
		}
		for id := range rows {
			if !seen[id] {
				delete(rows, id)
			}
		}
		if live {
			drawBoard(stdout, rows)
		}
		select {
		case <-ctx.Done():
			return exitOK
		case <-t.C:
		}
	}
}

type paneInfo struct{ id, target, command string }

func listPanes(ctx context.Context, srv tmuxdriver.Server) ([]paneInfo, error) {
	out, err := srv.Run(ctx, nil, "list-panes", "-a", "-F", "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_current_command}")
	if err != nil {
		return nil, err
	}
	var panes []paneInfo
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) == 3 {
			panes = append(panes, paneInfo{f[0], f[1], f[2]})
		}
	}
	return panes, nil
}

// providerFor picks the provider whose name the pane's command contains.
func providerFor(command string) string {
	for _, n := range provider.Names() {
		if strings.Contains(strings.ToLower(command), n) {
			return n
		}
	}
	return provider.Default
}

func drawBoard(w io.Writer, rows map[string]*boardRow) {
	ids := make([]string, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return strings.Compare(rows[a].Target, rows[b].Target) })
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	fmt.Fprintf(&b, "%-6s %-16s %-8s %-19s %8s  %s\n", "PANE", "TARGET", "PROVIDER", "STATUS", "FOR", "REASON / DISPATCH")
	for _, id := range ids {
		r := rows[id]
		reason := r.Reason
		if r.Note != "" {
			reason = r.Note
		}
		if len(reason) > 100 {
			reason = reason[:100] + "…"
		}
		fmt.Fprintf(&b, "%-6s %-16s %-8s %-19s %8s  %s\n", r.Pane, r.Target, r.Provider, r.Status,
			time.Since(r.Since).Round(time.Second), reason)
	}
	io.WriteString(w, b.String())
}
