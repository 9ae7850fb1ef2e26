// Package tracing reports dispatches to OpenTelemetry: one span per
// dispatch (role, provider, pane, outcome, response bytes), each transition
// as a span event, and the observations as a counter. It is off unless the
// caller passes a tracer (or a meter): the engine itself never imports it.
package tracing

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// Dispatch describes a dispatch for its span.
type Dispatch struct {
	Role     string
	Provider string // "codex", "claude"; "" if unknown
	Pane     string // the tmux target
}

// Tracer wraps dispatches in spans. A nil meter counts nothing.
type Tracer struct {
	tracer trace.Tracer
	polls  metric.Int64Counter
}

// New returns a Tracer on tracer and (optionally) meter.
func New(tracer trace.Tracer, meter metric.Meter) (*Tracer, error) {
	t := &Tracer{tracer: tracer}
	if meter != nil {
		c, err := meter.Int64Counter("handoff.polls", metric.WithDescription("observations of the agent's terminal and response file"))
		if err != nil {
			return nil, err
		}
		t.polls = c
	}
	return t, nil
}

// SendAndWait runs fsm.SendAndWait inside a span "handoff.dispatch": the
// options' Observer and OnPoll still run, after the span's own.
func (t *Tracer) SendAndWait(ctx context.Context, d Dispatch, s handoff.Sender, term handoff.Terminal, prompt string, opts fsm.Options) (fsm.Result, error) {
	ctx, span := t.tracer.Start(ctx, "handoff.dispatch", trace.WithAttributes(
		attribute.String("handoff.role", d.Role),
		attribute.String("handoff.provider", d.Provider),
		attribute.String("handoff.pane", d.Pane)))
	defer span.End()
	observer, onPoll := opts.Observer, opts.OnPoll
	opts.Observer = func(e fsm.Entry) {
		span.AddEvent("transition", trace.WithTimestamp(e.At), trace.WithAttributes(
			attribute.String("from", string(e.From)), attribute.String("to", string(e.To)),
			attribute.String("event", string(e.Event)), attribute.String("status", string(e.Status))))
		if observer != nil {
			observer(e)
		}
	}
	polls := 0
	opts.OnPoll = func(p fsm.Poll) {
		polls++
		if t.polls != nil {
			t.polls.Add(ctx, 1, metric.WithAttributes(attribute.String("handoff.role", d.Role), attribute.String("status", string(p.Status))))
		}
		if onPoll != nil {
			onPoll(p)
		}
	}
	res, err := fsm.SendAndWait(ctx, s, term, prompt, opts)
	span.SetAttributes(attribute.Int("handoff.polls", polls))
	switch o, failed := handoff.FailureOf(err); {
	case err == nil:
		span.SetAttributes(attribute.String("handoff.outcome", res.Outcome().Name),
			attribute.Int("handoff.response_bytes", len(res.Content)))
		span.SetStatus(codes.Ok, "")
	case failed:
		span.SetAttributes(attribute.String("handoff.outcome", o.Name))
		span.RecordError(err)
		span.SetStatus(codes.Error, o.Summary)
	default:
		outcome := "error"
		if errors.Is(err, context.Canceled) {
			outcome = "canceled"
		}
		span.SetAttributes(attribute.String("handoff.outcome", outcome))
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return res, err
}
