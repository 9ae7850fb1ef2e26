package otlphttp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// Config says where and how the exporter sends spans.
type Config struct {
	// URL is where the spans are POSTed, path included
	// (http://localhost:4318/v1/traces).
	URL string
	// Headers go with every request (an API key, a tenant).
	Headers map[string]string
	// Timeout bounds one export, its retries included; 0 is DefaultTimeout.
	Timeout time.Duration
	// Gzip compresses the request body.
	Gzip bool
	// TLS is the client's TLS configuration for an https URL; nil uses
	// the system's roots.
	TLS *tls.Config
	// UserAgent names the exporter to the collector; "" is a default.
	UserAgent string
}

// DefaultTimeout bounds an export when Config.Timeout is 0, as the
// OpenTelemetry specification's default for OTEL_EXPORTER_OTLP_TIMEOUT.
const DefaultTimeout = 10 * time.Second

// ConfigFromEnv reads the OpenTelemetry specification's variables for an
// OTLP/HTTP trace exporter, through getenv (os.Getenv):
//
//   - OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, the URL used as is (a URL without
//     a path gets /), or else OTEL_EXPORTER_OTLP_ENDPOINT, a base URL to
//     which v1/traces is appended; by default http://localhost:4318/v1/traces;
//   - OTEL_EXPORTER_OTLP_[TRACES_]HEADERS: key=value pairs separated by
//     commas, the values URL-decoded;
//   - OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT: milliseconds per export, retries
//     included (0, or unset: DefaultTimeout);
//   - OTEL_EXPORTER_OTLP_[TRACES_]COMPRESSION: gzip or none;
//   - OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL: http/protobuf, the only one
//     this exporter speaks (grpc and http/json are refused with an error
//     that says so);
//   - OTEL_EXPORTER_OTLP_[TRACES_]CERTIFICATE: a PEM file of the roots to
//     trust, and OTEL_EXPORTER_OTLP_[TRACES_]CLIENT_CERTIFICATE with
//     OTEL_EXPORTER_OTLP_[TRACES_]CLIENT_KEY for a client certificate.
//
// The TRACES_ variable wins over the general one; an empty variable is
// unset. OTEL_EXPORTER_OTLP_INSECURE is for gRPC only, per the
// specification: over HTTP the URL's scheme decides. A value that cannot
// be honoured is an error naming the variable, rather than an export that
// quietly does something else.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	get := func(name string) (value, variable string) {
		for _, n := range []string{"OTEL_EXPORTER_OTLP_TRACES_" + name, "OTEL_EXPORTER_OTLP_" + name} {
			if v := strings.TrimSpace(getenv(n)); v != "" {
				return v, n
			}
		}
		return "", ""
	}
	var cfg Config
	if v, n := get("PROTOCOL"); v != "" && v != "http/protobuf" {
		return cfg, fmt.Errorf("%s=%s is not supported: handoff-fsm exports traces over OTLP/HTTP with protobuf only (http/protobuf)", n, v)
	}
	var err error
	if cfg.URL, err = endpoint(getenv); err != nil {
		return cfg, err
	}
	if v, n := get("HEADERS"); v != "" {
		if cfg.Headers, err = parseHeaders(v); err != nil {
			return cfg, fmt.Errorf("%s: %w", n, err)
		}
	}
	if v, n := get("TIMEOUT"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return cfg, fmt.Errorf("%s=%q: want a number of milliseconds", n, v)
		}
		cfg.Timeout = time.Duration(ms) * time.Millisecond
		if ms == 0 {
			cfg.Timeout = DefaultTimeout
		}
	}
	switch v, n := get("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		cfg.Gzip = true
	default:
		return cfg, fmt.Errorf("%s=%q: want gzip or none", n, v)
	}
	if cfg.TLS, err = tlsFromEnv(get); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// endpoint is the URL spans go to, per the specification: the per-signal
// variable as is, or the general one with v1/traces appended to its path.
func endpoint(getenv func(string) string) (string, error) {
	n := "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	v := strings.TrimSpace(getenv(n))
	perSignal := v != ""
	if !perSignal {
		n = "OTEL_EXPORTER_OTLP_ENDPOINT"
		v = strings.TrimSpace(getenv(n))
	}
	if v == "" {
		return "http://localhost:4318/v1/traces", nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s=%q: want an http:// or https:// URL", n, v)
	}
	switch {
	case perSignal && u.Path == "":
		u.Path = "/"
	case !perSignal:
		u.Path = path.Join("/", u.Path, "v1/traces")
		u.RawPath = ""
	}
	return u.String(), nil
}

// parseHeaders reads the W3C-baggage-like list the specification gives
// headers in: key=value pairs separated by commas, spaces around them
// trimmed, the values percent-decoded.
func parseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"(),/:;<=>?@[\\]{}") {
			return nil, fmt.Errorf("%q is not a key=value pair", strings.TrimSpace(pair))
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("the value of %s: %w", k, err)
		}
		h[k] = strings.TrimSpace(dv)
	}
	return h, nil
}

// tlsFromEnv is the TLS configuration the certificate variables ask for;
// nil when none is set.
func tlsFromEnv(get func(string) (string, string)) (*tls.Config, error) {
	ca, caVar := get("CERTIFICATE")
	cert, certVar := get("CLIENT_CERTIFICATE")
	key, keyVar := get("CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", caVar, err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", caVar, ca)
		}
	}
	if cert != "" || key != "" {
		if cert == "" || key == "" {
			return nil, errors.New("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY go together")
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", certVar, keyVar, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
