package web

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// ScreenView is GET /board/screen: a pane's screen as its provider's
// classifier read it, line by line in the terminal's colours, with the
// status, the rule that decided it (Reason) and the lines it decided on.
type ScreenView struct {
	serve.PaneScreen
	// Capture is left out: Lines carries it, styled.
	Capture string       `json:"-"`
	Lines   []ScreenLine `json:"lines"`
	At      time.Time    `json:"at"`
}

// ScreenLine is a line of the screen and what the classifier found on it.
type ScreenLine struct {
	Spans []Span `json:"spans"`
	// Marks name the classifier's signals found on this line ("reply",
	// "prompt", "error", …): the lines that decided the status.
	Marks []string `json:"marks,omitempty"`
}

// screen serves GET /board/screen?socket=S|socket_path=P&pane=%N
// [&provider=NAME]: one read of the pane, over the server's shared control
// client; the page asks again every second while it is shown, never
// otherwise.
func (b *Board) screen(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	srv := tmuxdriver.Server{Socket: q.Get("socket"), SocketPath: q.Get("socket_path")}
	if srv.Socket != "" && srv.SocketPath != "" {
		writeJSON(w, http.StatusBadRequest, serve.APIError{Error: "give socket or socket_path, not both", Field: "socket_path"})
		return
	}
	pane := q.Get("pane")
	if pane == "" {
		writeJSON(w, http.StatusBadRequest, serve.APIError{Error: "pane is required (%N or session:window.pane)", Field: "pane"})
		return
	}
	b.hold(srv)
	ps, err := b.svc.Screen(r.Context(), srv, pane, q.Get("provider"), 0)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, serve.APIError{Error: err.Error()})
		return
	}
	v := ScreenView{PaneScreen: ps, At: time.Now()}
	marks := lineMarks(ps.Signals)
	styled := Styled(ps.Capture)
	for i, spans := range styled {
		fromEnd := len(styled) - i // the classifiers' numbering: 1 is the last line
		v.Lines = append(v.Lines, ScreenLine{Spans: spans, Marks: marks[fromEnd]})
	}
	if v.Lines == nil {
		v.Lines = []ScreenLine{}
	}
	writeJSON(w, http.StatusOK, v)
}

// lineMarks reads a classifier's signals for the lines they name: every
// field "X_line" (a line counted from the end of the capture, 1 the last;
// the convention of every provider's Signals) marks its line with X.
func lineMarks(signals any) map[int][]string {
	out := map[int][]string{}
	b, err := json.Marshal(signals)
	if err != nil {
		return out
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return out
	}
	for k, v := range m {
		n, ok := v.(float64)
		name, isLine := strings.CutSuffix(k, "_line")
		if ok && isLine && n >= 1 {
			out[int(n)] = append(out[int(n)], name)
		}
	}
	for _, names := range out {
		sort.Strings(names)
	}
	return out
}
