package main

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/handoff-fsm/handoff-fsm/serve"
)

// jsonLines is stderr for --log-format json: every line written to it
// becomes one slog JSON object (msg = the line, "handoff-fsm: " dropped),
// so a supervisor reads nothing but JSON; transitions are logged as
// structured objects by logTransition instead.
type jsonLines struct {
	log *slog.Logger
	mu  sync.Mutex
	buf bytes.Buffer
}

func newJSONLines(w io.Writer) *jsonLines {
	return &jsonLines{log: slog.New(slog.NewJSONHandler(w, nil))}
}

func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf.Write(p)
	for {
		line, err := j.buf.ReadString('\n')
		if err != nil {
			j.buf.WriteString(line) // an unfinished line waits for its end
			return len(p), nil
		}
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "handoff-fsm:"))
		if line != "" {
			j.log.Info(line)
		}
	}
}

// logTransition logs a dispatch's transition as one structured object
// (slog adds its time).
func logTransition(log *slog.Logger, e serve.Event) {
	log.Info("transition", "role", e.Role, "from", e.From, "to", e.To, "event", e.Event, "status", e.Status)
}
