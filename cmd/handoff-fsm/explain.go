package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

const explainUsage = `usage: handoff-fsm explain --target T [--socket NAME | --socket-path PATH] [--provider P]
       handoff-fsm explain [--provider P | --provider-file F] [--title TITLE] CAPTURE|-
       handoff-fsm explain --dispatch ID [--server ADDR | --state-dir DIR]
       handoff-fsm explain --record TRACE

Says, for a person, why a screen reads as it does and why a dispatch moved as it did:
  --target    a live pane now: its status, the provider's reason, what the screen said, and
              which of the provider's signals were seen (and which were not)
  CAPTURE     the same for a saved screen (tmux capture-pane -p -e -J)
  --dispatch  a dispatch of handoff-fsm serve (through the service, or from its state folder):
              each transition with its evidence (the status and the classifier's reason at
              that poll, or the file, hook or deadline that decided it)
  --record    the same for a trace that send --record wrote: it is replayed through the
              engine, and each transition is shown with the recorded screen behind it

flags:
`

// runExplain prints a person's reading of a screen or of a dispatch.
func runExplain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("explain", explainUsage, stderr)
	pf := addPaneFlags(cmd.FlagSet)
	title := cmd.String("title", "", "the pane title of a saved capture (#{pane_title})")
	dispatch := cmd.String("dispatch", "", "a dispatch id of handoff-fsm serve")
	server := cmd.String("server", "", "with --dispatch: ask the service at unix:PATH or tcp:HOST:PORT (or HANDOFF_SERVER)")
	stateDir := cmd.String("state-dir", "", "with --dispatch: the service's state folder (default: the user's state folder)")
	record := cmd.String("record", "", "a trace file written by send --record")
	files, code, ok := cmd.parse(args)
	if !ok {
		return code
	}
	given := 0
	for _, on := range []bool{pf.pane.Target != "", *dispatch != "", *record != "", len(files) > 0} {
		if on {
			given++
		}
	}
	if given > 1 || len(files) > 1 {
		return cmd.usageErr("explain one thing at a time: --target, --dispatch, --record or one CAPTURE file")
	}
	switch {
	case pf.pane.Target != "":
		return explainPane(ctx, cmd, pf, stdout)
	case *dispatch != "":
		return explainDispatch(ctx, cmd, *dispatch, *server, *stateDir, stdout)
	case *record != "":
		return explainRecord(ctx, cmd, *record, stdout)
	}
	cl, name, capture, code, ok := readClassified(cmd, pf.pane.Provider, *pf.providerFile, *title, files, stdin)
	if !ok {
		return code
	}
	writeReading(stdout, name, cl.Classify(capture, *title))
	return exitOK
}

// explainPane reads a live pane once.
func explainPane(ctx context.Context, cmd cmdline, pf *paneFlags, stdout io.Writer) int {
	pane, err := pf.open(tmuxdriver.Options{})
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	snap, err := pane.Observe(ctx)
	if err != nil {
		if !paneGone(err) {
			return cmd.fail(exitFailure, "%v", err)
		}
		writeReading(stdout, pf.providerName(), handoff.Classification{Status: handoff.StatusError, Reason: err.Error()})
		return exitTerminal
	}
	fmt.Fprintf(stdout, "pane     %s (%s), running %s\n", pf.pane.Target, pane.Server(), snap.Command)
	writeReading(stdout, pf.providerName(), snap.Classification)
	return exitOK
}

// writeReading prints a classification for a person: the status, the
// reason, what the screen said, then the provider's signals, the ones seen
// first and the ones not seen after.
func writeReading(w io.Writer, providerName string, c handoff.Classification) {
	fmt.Fprintf(w, "provider %s\nstatus   %s\nwhy      %s\n", providerName, c.Status, c.Reason)
	if c.Detail != "" {
		fmt.Fprintf(w, "said     %s\n", c.Detail)
	}
	fmt.Fprintf(w, "meaning  %s\n", statusMeaning(c.Status))
	seen, unseen := signalsOf(c.Signals)
	if len(seen) > 0 {
		fmt.Fprintf(w, "what %s's rules saw (signals):\n", providerName)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, s := range seen {
			fmt.Fprintf(tw, "  %s\t%s\n", s[0], s[1])
		}
		tw.Flush()
	}
	if len(unseen) > 0 {
		fmt.Fprintf(w, "not seen: %s\n", strings.Join(unseen, ", "))
	}
}

// statusMeaning is what the engine does with a status.
func statusMeaning(st handoff.Status) string {
	switch {
	case st == handoff.StatusError:
		return "an error on the screen (or a gone pane): a dispatch on it fails at once (terminal_error)"
	case st == handoff.StatusWaitingUserAnswer:
		return "the agent waits for the user: a dispatch answers it (--auto-answer) or says it needs attention"
	case st.Quiet():
		return "quiet (a ready prompt): a dispatch reads the response file now, or counts the idle grace"
	}
	return "busy: a dispatch counts the agent as working"
}

// signalsOf splits a classifier's signals (a JSON object) into the ones
// with a value, in their order, and the names of those empty, zero or
// false. Signals that are not an object are one value named "signals".
func signalsOf(signals any) (seen [][2]string, unseen []string) {
	b, err := json.Marshal(signals)
	if err != nil || string(b) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return [][2]string{{"signals", string(b)}}, nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		name := fmt.Sprint(k)
		switch string(v) {
		case `""`, "0", "false", "null", "[]", "{}":
			unseen = append(unseen, name)
		default:
			seen = append(seen, [2]string{name, string(v)})
		}
	}
	return seen, unseen
}

// explainDispatch shows a service dispatch's transitions with their
// evidence.
func explainDispatch(ctx context.Context, cmd cmdline, id, server, stateDir string, stdout io.Writer) int {
	client, err := serverClient(server)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	var v serve.View
	if client != nil {
		v, err = client.Get(ctx, id, 0)
	} else {
		if stateDir == "" {
			if stateDir, err = serve.DefaultStateDir(); err != nil {
				return cmd.usageErr("%v", err)
			}
		}
		v, err = serve.Load(stateDir, id)
	}
	if errors.Is(err, serve.ErrNoDispatch) {
		return cmd.usageErr("%v", err)
	}
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	where := v.Target
	if v.Socket != "" {
		where += " on tmux -L " + v.Socket
	} else if v.SocketPath != "" {
		where += " on tmux -S " + v.SocketPath
	}
	fmt.Fprintf(stdout, "dispatch %s: %s asked on pane %s (%s), %s\n", v.ID, v.Role, where, v.Provider, v.State)
	if v.Final {
		fmt.Fprintf(stdout, "ended    %s", v.Outcome)
		if v.Source != "" {
			fmt.Fprintf(stdout, " (%s)", v.Source)
		}
		if v.Exit != nil {
			fmt.Fprintf(stdout, ", exit %d", *v.Exit)
		}
		if v.Error != "" {
			fmt.Fprintf(stdout, ": %s", v.Error)
		}
		fmt.Fprintln(stdout)
	}
	if v.ArchivedPath != "" {
		fmt.Fprintf(stdout, "archived %s\n", v.ArchivedPath)
	}
	writeTransitions(stdout, v.Transitions)
	return exitOK
}

// writeTransitions prints each transition and the evidence behind it.
func writeTransitions(w io.Writer, ts []trace.Transition) {
	if len(ts) == 0 {
		fmt.Fprintln(w, "no transition yet")
		return
	}
	fmt.Fprintln(w, "transitions:")
	for i, t := range ts {
		fmt.Fprintf(w, "%2d. %7.2f s  %s → %s on %s (status %s)\n", i+1, t.At, t.From, t.To, t.Event, t.Status)
		fmt.Fprintf(w, "             %s\n", handoff.Event(t.Event).Describe())
		ev := t.Evidence
		if ev == nil {
			fmt.Fprintln(w, "             evidence: not kept (a dispatch resumed from before the service kept it)")
			continue
		}
		by := map[string]string{trace.ByScreen: "the screen", trace.ByFile: "the response file", trace.ByHook: "the agent's completion hook",
			trace.ByDeadline: "a deadline", trace.ByLook: "the look at the terminal"}[ev.By]
		if by == "" {
			by = ev.By
		}
		fmt.Fprintf(w, "             decided by %s", by)
		if ev.Deadline != "" {
			fmt.Fprintf(w, " (%s)", ev.Deadline)
		}
		fmt.Fprintln(w)
		if ev.Reason != "" {
			fmt.Fprintf(w, "             screen: %s\n", ev.Reason)
		}
		if ev.Detail != "" {
			fmt.Fprintf(w, "             said: %s\n", ev.Detail)
		}
		if ev.File != "" {
			fmt.Fprintf(w, "             file: %s", ev.File)
			if ev.Archived != "" {
				fmt.Fprintf(w, ", archived at %s", ev.Archived)
			}
			if ev.Problem != "" {
				fmt.Fprintf(w, " (%s)", ev.Problem)
			}
			fmt.Fprintln(w)
		}
		if seen, _ := signalsOf(ev.Signals); len(seen) > 0 {
			parts := make([]string, len(seen))
			for i, s := range seen {
				parts[i] = s[0] + "=" + s[1]
			}
			fmt.Fprintf(w, "             signals: %s\n", strings.Join(parts, " "))
		}
	}
}

// explainRecord replays a recorded trace and shows each transition with
// the recorded moment behind it.
func explainRecord(ctx context.Context, cmd cmdline, path string, stdout io.Writer) int {
	tr, err := trace.ReadFile(path)
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	cfg := tr.WaitConfig()
	rep, err := trace.Replay(ctx, tr, trace.ReplayOptions{Config: cfg})
	if err != nil {
		return cmd.fail(exitFailure, "%s: %v", path, err)
	}
	fmt.Fprintf(stdout, "trace %s (poll %v, idle grace %v, response timeout %v): %s", path, cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout, rep.Outcome)
	if rep.Source != "" {
		fmt.Fprintf(stdout, " (%s)", rep.Source)
	}
	if rep.Error != "" {
		fmt.Fprintf(stdout, ": %s", rep.Error)
	}
	fmt.Fprintf(stdout, " at %.2f s\n", rep.At)
	for i := range rep.Transitions {
		rep.Transitions[i].Evidence = recordedEvidence(tr, rep.Transitions[i])
	}
	writeTransitions(stdout, rep.Transitions)
	return exitOK
}

// recordedEvidence is a replayed transition's evidence read off the trace:
// the last recorded screen at or before it (with the classifier's reason
// when the recorder kept it), and the file at the path then.
func recordedEvidence(tr trace.Trace, t trace.Transition) *trace.Evidence {
	p := fsm.Poll{Observation: fsm.Observation{Status: handoff.Status(t.Status), File: fsm.FileAbsent}}
	var reason string
	for _, l := range tr.Lines {
		if l.At.Seconds() > t.At+1e-9 {
			break
		}
		if l.Status != nil {
			reason = l.Reason
		}
		switch {
		case l.File != nil:
			p.File = fsm.FileReady
		case l.Unusable != nil:
			p.File, p.Problem = fsm.FileUnusable, *l.Unusable
		}
	}
	if reason != "" {
		p.Classification = &handoff.Classification{Status: p.Status, Reason: reason}
	}
	return trace.EvidenceOf(p, fsm.Entry{From: handoff.State(t.From), To: handoff.State(t.To), Event: handoff.Event(t.Event), Status: p.Status})
}
