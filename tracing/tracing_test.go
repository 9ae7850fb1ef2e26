package tracing_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
	"github.com/handoff-fsm/handoff-fsm/tracing"
)

// agent is idle until sent a prompt, works on the first look after it,
// then writes its answer and is idle.
type agent struct {
	path  string
	sent  bool
	looks int
	never bool // never writes
}

func (a *agent) Send(context.Context, string) error { a.sent = true; return nil }
func (a *agent) Status(context.Context) (handoff.Status, error) {
	if !a.sent {
		return handoff.StatusIdle, nil // ready for a prompt
	}
	a.looks++
	if a.looks == 1 {
		return handoff.StatusProcessing, nil
	}
	if !a.never {
		if err := os.WriteFile(a.path, []byte("the answer"), 0o644); err != nil {
			return "", err
		}
	}
	return handoff.StatusIdle, nil
}
func (a *agent) LastOutput(context.Context) (string, error) { return "", nil }

func TestADispatchIsOneSpanWithItsTransitionsAndPolls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		never   bool
		outcome string
	}{{"done", false, "file"}, {"no file", true, "no_response_file"}} {
		t.Run(tc.name, func(t *testing.T) {
			spans := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
			reader := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
			tr, err := tracing.New(tp.Tracer("test"), mp.Meter("test"))
			if err != nil {
				t.Fatal(err)
			}
			work := t.TempDir()
			path, _ := handoff.ResponsePath(work, "tester")
			a := &agent{path: path, never: tc.never}
			_, err = tr.SendAndWait(context.Background(), tracing.Dispatch{Role: "tester", Provider: "codex", Pane: "%3"}, a, a, "Test it.",
				fsm.Options{Role: "tester", Workdir: work, Clock: vclock.New(time.Unix(0, 0)), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if (err == nil) == tc.never {
				t.Fatalf("err %v", err)
			}
			got := spans.GetSpans()
			if len(got) != 1 || got[0].Name != "handoff.dispatch" {
				t.Fatalf("spans %v, want one handoff.dispatch", got)
			}
			attrs := map[attribute.Key]attribute.Value{}
			for _, kv := range got[0].Attributes {
				attrs[kv.Key] = kv.Value
			}
			if attrs["handoff.role"].AsString() != "tester" || attrs["handoff.provider"].AsString() != "codex" ||
				attrs["handoff.pane"].AsString() != "%3" || attrs["handoff.outcome"].AsString() != tc.outcome ||
				attrs["handoff.polls"].AsInt64() != int64(a.looks) {
				t.Errorf("attributes %v", attrs)
			}
			if !tc.never && attrs["handoff.response_bytes"].AsInt64() != int64(len("the answer")) {
				t.Errorf("response bytes %v", attrs["handoff.response_bytes"])
			}
			var events []string
			for _, e := range got[0].Events {
				if e.Name == "transition" {
					for _, kv := range e.Attributes {
						if kv.Key == "to" {
							events = append(events, kv.Value.AsString())
						}
					}
				}
			}
			if len(events) < 2 || events[len(events)-1] != map[bool]string{false: "Done", true: "Failed"}[tc.never] {
				t.Errorf("transition events %v", events)
			}
			var rm metricdata.ResourceMetrics
			if err := reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			var polls int64
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "handoff.polls" {
						for _, dp := range sum.DataPoints {
							polls += dp.Value
						}
					}
				}
			}
			if polls != int64(a.looks) {
				t.Errorf("polls counter %d, want %d", polls, a.looks)
			}
		})
	}
}
