// Package otlphttp is an OpenTelemetry span exporter that POSTs spans to a
// collector over OTLP/HTTP, in protobuf, configured by the specification's
// OTEL_EXPORTER_OTLP_* variables.
//
// It stands in for go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp,
// whose configuration package imports gRPC (open-telemetry/opentelemetry-go
// issues 2579 and 8385): linking gRPC and the protobuf runtime made every
// handoff-fsm process, a short `send --server` client too, start 9 MB and
// 139 packages heavier, tracing on or not. This package writes the OTLP
// messages (trace/v1, common/v1, resource/v1 and the
// ExportTraceServiceRequest envelope) in the protobuf wire format itself,
// so that neither is linked.
package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Exporter sends spans to a collector; it is an sdktrace.SpanExporter, to
// be wrapped in a batch span processor (sdktrace.WithBatcher).
type Exporter struct {
	cfg    Config
	client *http.Client

	mu      sync.Mutex
	stopped bool
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// New returns an exporter sending as cfg says.
func New(cfg Config) *Exporter {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "handoff-fsm-otlphttp"
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.TLS != nil {
		tr.TLSClientConfig = cfg.TLS
	}
	return &Exporter{cfg: cfg, client: &http.Client{Transport: tr}}
}

// errStopped: spans offered after Shutdown are not sent.
var errStopped = errors.New("otlphttp: the exporter is shut down")

// ExportSpans sends spans in one request, within the configured timeout,
// retrying briefly when the collector says it is busy (429, 502, 503,
// 504). A collector that accepts only part of them makes an error that
// says how many it rejected and why.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.mu.Lock()
	stopped := e.stopped
	e.mu.Unlock()
	if stopped {
		return errStopped
	}
	body := appendRequest(nil, spans)
	if len(body) == 0 {
		return nil
	}
	if e.cfg.Gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		body = b.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	return e.post(ctx, body)
}

// Retries: a few, soon; a short-lived command must not linger over its
// traces.
const (
	maxAttempts  = 4
	firstBackoff = 200 * time.Millisecond
	maxBackoff   = 2 * time.Second
)

// post sends body, retrying a busy collector while ctx lasts.
func (e *Exporter) post(ctx context.Context, body []byte) error {
	backoff := firstBackoff
	for attempt := 1; ; attempt++ {
		wait, err := e.postOnce(ctx, body)
		if err == nil || wait < 0 || attempt == maxAttempts {
			return err
		}
		if wait == 0 {
			// Jitter spreads the retries of many processes.
			wait = backoff/2 + rand.N(backoff/2+1)
			backoff = min(2*backoff, maxBackoff)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// maxResponse bounds what is read of a collector's answer.
const maxResponse = 64 << 10

// postOnce is one request. retry is negative when a retry cannot help,
// 0 to retry after the usual backoff, positive when the collector said
// when (Retry-After).
func (e *Exporter) postOnce(ctx context.Context, body []byte) (retry time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return -1, fmt.Errorf("otlphttp: %w", err)
	}
	for k, v := range e.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", e.cfg.UserAgent)
	if e.cfg.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return -1, fmt.Errorf("otlphttp: %w", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-protobuf") {
			return -1, nil
		}
		return -1, partialSuccess(answer)
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		retry = 0
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			retry = time.Duration(s) * time.Second
		}
		return retry, fmt.Errorf("otlphttp: %s: %s (%s)", e.cfg.URL, resp.Status, said(answer))
	}
	return -1, fmt.Errorf("otlphttp: %s: %s (%s)", e.cfg.URL, resp.Status, said(answer))
}

// said is a collector's error body for a message.
func said(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "no body"
	}
	if len(s) > 512 {
		s = s[:512] + "…"
	}
	return s
}

// partialSuccess reads an ExportTraceServiceResponse: its field 1,
// partial_success, holds rejected_spans (1) and error_message (2). Nil
// when the collector took everything, or sent what this cannot read (the
// request itself succeeded).
func partialSuccess(b []byte) error {
	var rejected uint64
	var msg string
	for len(b) > 0 {
		field, wire, _, body, rest, ok := nextField(b)
		if !ok {
			return nil
		}
		b = rest
		if field != 1 || wire != wireBytes {
			continue
		}
		for len(body) > 0 {
			f, w, v, s, r, ok := nextField(body)
			if !ok {
				return nil
			}
			body = r
			switch {
			case f == 1 && w == wireVarint:
				rejected = v
			case f == 2 && w == wireBytes:
				msg = string(s)
			}
		}
	}
	if rejected == 0 && msg == "" {
		return nil
	}
	return fmt.Errorf("otlphttp: the collector rejected %d spans: %s", rejected, msg)
}

// nextField reads one field off b: a varint's value, or a length-delimited
// field's bytes; fixed-size fields are skipped over. ok is false when b
// is not protobuf.
func nextField(b []byte) (field, wire int, v uint64, data, rest []byte, ok bool) {
	tag, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, 0, nil, nil, false
	}
	b = b[n:]
	field, wire = int(tag>>3), int(tag&7)
	switch wire {
	case wireVarint:
		if v, n = binary.Uvarint(b); n <= 0 {
			return 0, 0, 0, nil, nil, false
		}
		return field, wire, v, nil, b[n:], true
	case wireBytes:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return 0, 0, 0, nil, nil, false
		}
		return field, wire, 0, b[n : n+int(l)], b[n+int(l):], true
	case wireFixed64:
		if len(b) < 8 {
			return 0, 0, 0, nil, nil, false
		}
		return field, wire, 0, nil, b[8:], true
	case wireFixed32:
		if len(b) < 4 {
			return 0, 0, 0, nil, nil, false
		}
		return field, wire, 0, nil, b[4:], true
	}
	return 0, 0, 0, nil, nil, false
}

// Shutdown stops the exporter: later spans are refused, and idle
// connections closed. The batch span processor flushes its queue through
// ExportSpans before calling it, so nothing in flight is lost.
func (e *Exporter) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
	e.client.CloseIdleConnections()
	return ctx.Err()
}
