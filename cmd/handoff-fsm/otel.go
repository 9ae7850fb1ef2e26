package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/handoff-fsm/handoff-fsm/tracing"
	"github.com/handoff-fsm/handoff-fsm/tracing/otlphttp"
	"github.com/handoff-fsm/handoff-fsm/version"
)

// otelTracer turns tracing on when the standard OpenTelemetry variables ask
// for it (OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint) and
// OTEL_SDK_DISABLED is not true: spans go to the collector over OTLP/HTTP,
// configured by the OTEL_EXPORTER_OTLP_* variables (otlphttp.ConfigFromEnv;
// a setting it cannot honour, such as the grpc protocol, is said on stderr
// and nothing is traced). Otherwise nil, and nothing is traced. shutdown
// flushes the spans.
func otelTracer(ctx context.Context, stderr io.Writer) (t *tracing.Tracer, shutdown func()) {
	on := os.Getenv("OTEL_TRACES_EXPORTER") == "otlp" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" ||
		os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	if !on || os.Getenv("OTEL_SDK_DISABLED") == "true" || os.Getenv("OTEL_TRACES_EXPORTER") == "none" {
		return nil, func() {}
	}
	cfg, err := otlphttp.ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm: OpenTelemetry: %v; not tracing\n", err)
		return nil, func() {}
	}
	v := version.Get()
	cfg.UserAgent = "handoff-fsm/" + v.Version
	exp := otlphttp.New(cfg)
	res, err := otelResource(ctx, v)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm: OpenTelemetry resource: %v\n", err)
	}
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

// otelResource describes this process to the collector: service.name
// handoff-fsm and the build (service.version, the source revision, whether
// it was modified, the Go version), under what OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES say, which win, as the OpenTelemetry convention
// wants (an orchestrator names its own service).
func otelResource(ctx context.Context, v version.Info) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{
		semconv.ServiceName("handoff-fsm"),
		semconv.ServiceVersion(v.Version),
		semconv.ProcessRuntimeName("go"),
		semconv.ProcessRuntimeVersion(v.Go),
		attribute.Bool("handoff.build.modified", v.Modified),
	}
	if v.Revision != "" {
		attrs = append(attrs, attribute.String("handoff.build.revision", v.Revision))
	}
	// Later options win: the environment comes last.
	return resource.New(ctx, resource.WithTelemetrySDK(), resource.WithAttributes(attrs...), resource.WithFromEnv())
}
