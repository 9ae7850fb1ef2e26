package otlphttp

import (
	"maps"
	"strings"
	"testing"
	"time"
)

// The OTEL_EXPORTER_OTLP_* variables as the specification reads them for
// OTLP/HTTP traces.
func TestConfigFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Config
	}{
		{name: "nothing set: the local collector", want: Config{URL: "http://localhost:4318/v1/traces"}},
		{name: "a base endpoint gets v1/traces",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4318"},
			want: Config{URL: "https://collector:4318/v1/traces"}},
		{name: "a base endpoint with a path keeps it",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/otlp/"},
			want: Config{URL: "http://collector:4318/otlp/v1/traces"}},
		{name: "the traces endpoint is used as is and wins",
			env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://base:4318",
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9999/custom/path"},
			want: Config{URL: "http://traces:9999/custom/path"}},
		{name: "a traces endpoint without a path gets /",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9999"},
			want: Config{URL: "http://traces:9999/"}},
		{name: "headers, URL-decoded and trimmed",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b%2Cc , tenant = one,empty="},
			want: Config{URL: "http://localhost:4318/v1/traces", Headers: map[string]string{"api-key": "a b,c", "tenant": "one", "empty": ""}}},
		{name: "the traces headers win",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2"},
			want: Config{URL: "http://localhost:4318/v1/traces", Headers: map[string]string{"b": "2"}}},
		{name: "timeout in milliseconds, compression, the protocol spoken",
			env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "1500",
				"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: Config{URL: "http://localhost:4318/v1/traces", Timeout: 1500 * time.Millisecond, Gzip: true}},
		{name: "no compression", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none"},
			want: Config{URL: "http://localhost:4318/v1/traces"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigFromEnv(func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if got.URL != tc.want.URL || got.Timeout != tc.want.Timeout || got.Gzip != tc.want.Gzip ||
				!maps.Equal(got.Headers, tc.want.Headers) || got.TLS != nil {
				t.Fatalf("config %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A value the exporter cannot use is refused with an error that names it.
func TestConfigFromEnvRefuses(t *testing.T) {
	for _, tc := range []struct{ name, variable, value, wantErr string }{
		{"grpc is refused", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"},
		{"http/json is refused", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json is not supported"},
		{"an endpoint without a scheme", "OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318", "want an http:// or https:// URL"},
		{"a bad timeout", "OTEL_EXPORTER_OTLP_TIMEOUT", "10s", `OTEL_EXPORTER_OTLP_TIMEOUT="10s": want a number of milliseconds`},
		{"a bad header", "OTEL_EXPORTER_OTLP_HEADERS", "novalue", `OTEL_EXPORTER_OTLP_HEADERS: "novalue" is not a key=value pair`},
		{"an unknown compression", "OTEL_EXPORTER_OTLP_COMPRESSION", "zstd", "want gzip or none"},
		{"a missing certificate", "OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem", "OTEL_EXPORTER_OTLP_CERTIFICATE: open /nonexistent/ca.pem"},
		{"a client certificate without its key", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "/x.pem", "go together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{tc.variable: tc.value}
			if _, err := ConfigFromEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
