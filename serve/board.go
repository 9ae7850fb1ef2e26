package serve

import (
	"context"
	"slices"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// PaneRow is one pane of the board (GET /v1/panes).
type PaneRow struct {
	tmuxdriver.PaneInfo
	Provider string `json:"provider"`
	handoff.Classification
	// Gone: the pane, its agent or its server is gone (Reason says which).
	Gone bool `json:"gone,omitempty"`
	// Dispatch is the id of the dispatch of this service running on the
	// pane, if any.
	Dispatch string `json:"dispatch,omitempty"`
	// HeldBy is who holds the pane now (a send, a resume, or a dispatch of
	// a service); TimedOut the dispatch that timed out on it while its
	// agent still worked, not yet seen finished; Note says both in words
	// (panelock.DispatchesOn).
	HeldBy   *panelock.Holder   `json:"held_by,omitempty"`
	TimedOut *panelock.TimedOut `json:"timed_out,omitempty"`
	Note     string             `json:"note,omitempty"`
	// Unrecognised is, for a row read with --provider auto, why no one
	// provider recognised the pane (provider.Pick's error): the row is
	// read with the provider its command names. Said by the command on
	// stderr; not part of the API's JSON.
	Unrecognised error `json:"-"`
}

// BoardQuery is what ReadBoard reads: a tmux server's panes, or the one
// Target names.
type BoardQuery struct {
	Server tmuxdriver.Server
	// Runner carries the looks (a shared control client's); nil: a tmux
	// process per command on Server.
	Runner tmuxdriver.Runner
	// Target, when set, is the one pane read.
	Target string
	// Provider names the rules each pane is read with; "" or "auto": the
	// provider that recognises the pane (provider.Pick).
	Provider string
	// Classifier, when set, reads every pane instead (a provider file);
	// Provider is then only its name in the rows.
	Classifier handoff.Classifier
	// History is the scrollback captured above the screen (the driver's
	// default if 0); AllowShell as tmuxdriver.Options'.
	History    int
	AllowShell bool
	// Running maps a pane's %id or target to the dispatch running on it.
	Running map[string]string
}

// ReadBoard reads the board's rows, one per pane: its provider, its
// status, the dispatch running on it (q.Running), and what the pane locks
// say (who holds it, the dispatch that timed out on it). It is the one
// way a board is built: the service's GET /v1/panes and web board, and
// the command's status and watch in their own process. A Target that is
// not there, or a server that is gone, is one row marked Gone; a provider
// name that is not known is an error on the provider field.
func ReadBoard(ctx context.Context, q BoardQuery) ([]PaneRow, error) {
	runner := q.Runner
	if runner == nil {
		runner = q.Server
	}
	infos, err := tmuxdriver.ListPanes(ctx, runner)
	if err != nil && q.Target != "" && dispatchstate.Gone(err) {
		return []PaneRow{goneRow(q.Target, err.Error())}, nil
	}
	if err != nil {
		return nil, err
	}
	if q.Target != "" {
		id := q.Target
		if !strings.HasPrefix(id, "%") {
			if out, err := runner.Run(ctx, nil, "display-message", "-p", "-t", q.Target, "#{pane_id}"); err == nil {
				id = strings.TrimSpace(out)
			}
		}
		infos = slices.DeleteFunc(infos, func(p tmuxdriver.PaneInfo) bool { return p.ID != id })
		if len(infos) == 0 {
			return []PaneRow{goneRow(q.Target, "pane "+q.Target+" is gone: not found on the tmux server")}, nil
		}
	}
	lockDir, _ := panelock.Dir() // "": no notes of dispatches
	rows := make([]PaneRow, 0, len(infos))
	for _, p := range infos {
		row, err := readRow(ctx, q, runner, p, lockDir)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func goneRow(target, reason string) PaneRow {
	return PaneRow{PaneInfo: tmuxdriver.PaneInfo{Target: target}, Gone: true,
		Classification: handoff.Classification{Status: handoff.StatusError, Reason: reason}}
}

// readRow looks at pane p once and makes its row.
func readRow(ctx context.Context, q BoardQuery, runner tmuxdriver.Runner, p tmuxdriver.PaneInfo, lockDir string) (PaneRow, error) {
	auto := q.Classifier == nil && (q.Provider == "" || q.Provider == provider.Auto)
	name, cl := q.Provider, q.Classifier
	if auto {
		name = provider.ForCommand(p.Command)
	}
	if cl == nil {
		var err error
		if cl, err = provider.Lookup(name); err != nil {
			return PaneRow{}, bad("provider", "%v", err)
		}
	}
	row := PaneRow{PaneInfo: p, Provider: name, Dispatch: q.Running[p.ID]}
	if row.Dispatch == "" {
		row.Dispatch = q.Running[p.Target]
	}
	pane, err := tmuxdriver.New(tmuxdriver.Options{Server: q.Server, Target: p.ID, Classifier: cl, Runner: runner,
		History: q.History, AllowShell: q.AllowShell})
	if err != nil {
		return PaneRow{}, err
	}
	snap, err := pane.Observe(ctx)
	row.Classification = snap.Classification
	switch {
	case err != nil:
		row.Classification = handoff.Classification{Status: handoff.StatusError, Reason: err.Error()}
		row.Gone = dispatchstate.Gone(err)
	case auto:
		row.Provider, row.Classification, row.Unrecognised = boardProvider(name, snap)
	}
	noteDispatches(ctx, &row, pane, lockDir)
	return row, nil
}

// noteDispatches adds to row what the pane locks say of its dispatches;
// nothing when the lock folder (lockDir "") or the pane cannot say.
func noteDispatches(ctx context.Context, row *PaneRow, pane *tmuxdriver.Pane, lockDir string) {
	if lockDir == "" || row.Gone {
		return
	}
	id, err := pane.Identity(ctx)
	if err != nil {
		return
	}
	d := panelock.DispatchesOn(lockDir, id, row.Status)
	row.HeldBy, row.TimedOut, row.Note = d.Holder, d.TimedOut, d.Note
}

// Board reads every pane of srv (or the one target names) over the
// server's shared control client, with the dispatches of this service
// running on them (ReadBoard).
func (s *Service) Board(ctx context.Context, srv tmuxdriver.Server, target, providerName string) ([]PaneRow, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	runner, release := s.tmux.runner(ctx, serverKey{srv.Socket, srv.SocketPath}, srv)
	defer release()
	running := map[string]string{}
	for _, v := range s.Dispatches(Filter{State: "running"}) {
		if v.Socket == srv.Socket && v.SocketPath == srv.SocketPath {
			running[v.Target] = v.ID
		}
	}
	return ReadBoard(ctx, BoardQuery{Server: srv, Runner: runner, Target: target, Provider: providerName, Running: running})
}
