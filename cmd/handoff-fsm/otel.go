package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/handoff-fsm/handoff-fsm/tracing"
)

// otelTracer turns tracing on when the standard OpenTelemetry variables ask
// for it (OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint) and
// OTEL_SDK_DISABLED is not true: spans go to the collector over OTLP/HTTP,
// configured by the OTEL_EXPORTER_OTLP_* variables. Otherwise nil, and
// nothing is traced. shutdown flushes the spans.
func otelTracer(ctx context.Context, stderr io.Writer) (t *tracing.Tracer, shutdown func()) {
	on := os.Getenv("OTEL_TRACES_EXPORTER") == "otlp" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" ||
		os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	if !on || os.Getenv("OTEL_SDK_DISABLED") == "true" || os.Getenv("OTEL_TRACES_EXPORTER") == "none" {
		return nil, func() {}
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm: OpenTelemetry: %v; not tracing\n", err)
		return nil, func() {}
	}
	res, _ := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName("handoff-fsm")))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t, err = tracing.New(tp.Tracer("github.com/handoff-fsm/handoff-fsm"), nil)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm: OpenTelemetry: %v; not tracing\n", err)
		return nil, func() {}
	}
	return t, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tp.Shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "handoff-fsm: OpenTelemetry: %v\n", err)
		}
	}
}
