package main

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/handoff-fsm/handoff-fsm/version"
)

func resourceValue(r *resource.Resource, key string) string {
	v, _ := r.Set().Value(attribute.Key(key))
	return v.Emit()
}

// The resource names the service handoff-fsm and the build, unless the
// environment names them: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
// win, as the OpenTelemetry convention wants.
func TestOpenTelemetryResource(t *testing.T) {
	build := version.Info{Version: "v1.2.0", Revision: "0123abcd", Modified: true, Go: "go1.26.8"}
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
	r, err := otelResource(context.Background(), build)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"service.name": "handoff-fsm", "service.version": "v1.2.0",
		"handoff.build.revision": "0123abcd", "handoff.build.modified": "true", "process.runtime.version": "go1.26.8",
		"telemetry.sdk.language": "go"} {
		if got := resourceValue(r, key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}

	t.Setenv("OTEL_SERVICE_NAME", "orch")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "service.version=9.9,deployment.environment=ci")
	r, err = otelResource(context.Background(), build)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"service.name": "orch", "service.version": "9.9",
		"deployment.environment": "ci", "handoff.build.revision": "0123abcd"} {
		if got := resourceValue(r, key); got != want {
			t.Errorf("with the environment set: %s = %q, want %q", key, got, want)
		}
	}

	// OTEL_RESOURCE_ATTRIBUTES alone can name the service too.
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes")
	r, _ = otelResource(context.Background(), build)
	if got := resourceValue(r, "service.name"); got != "from-attributes" {
		t.Errorf("service.name = %q, want the one OTEL_RESOURCE_ATTRIBUTES gives", got)
	}
}

// A protocol handoff-fsm does not speak is said on stderr, and nothing is
// traced (rather than spans sent in a form the collector does not expect).
func TestOpenTelemetryRefusesAProtocolItDoesNotSpeak(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	var stderr strings.Builder
	tr, shutdown := otelTracer(context.Background(), &stderr)
	shutdown()
	if tr != nil || !strings.Contains(stderr.String(), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported") ||
		!strings.Contains(stderr.String(), "not tracing") {
		t.Fatalf("tracer %v, stderr %q; want no tracer and a note that grpc is not supported", tr, stderr.String())
	}
}
