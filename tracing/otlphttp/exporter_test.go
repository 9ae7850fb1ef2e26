package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// collector is an OTLP/HTTP collector in the test: it keeps every request,
// and answers with the next of its statuses (200 once they run out).
type collector struct {
	*httptest.Server
	mu       sync.Mutex
	reqs     []*http.Request
	bodies   [][]byte
	statuses []int
	answer   []byte // the body of a 200, as application/x-protobuf
}

// got is what the collector received so far.
func (c *collector) got() (reqs []*http.Request, bodies [][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reqs), slices.Clone(c.bodies)
}

func newCollector(t *testing.T, statuses ...int) *collector {
	c := &collector{statuses: statuses}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.reqs = append(c.reqs, r)
		c.bodies = append(c.bodies, b)
		if len(c.statuses) > 0 {
			code := c.statuses[0]
			c.statuses = c.statuses[1:]
			if code != http.StatusOK {
				http.Error(w, "busy", code)
				return
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(c.answer)
	}))
	t.Cleanup(c.Close)
	return c
}

// decodeRequest reads an ExportTraceServiceRequest by hand (its package
// would link gRPC): field 1, repeated ResourceSpans, and nothing else.
func decodeRequest(t *testing.T, b []byte) []*tracepb.ResourceSpans {
	t.Helper()
	var out []*tracepb.ResourceSpans
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			t.Fatalf("the request holds field %d (type %d); want only field 1, ResourceSpans", num, typ)
		}
		b = b[n:]
		m, n := protowire.ConsumeBytes(b)
		if n < 0 {
			t.Fatal("a truncated ResourceSpans")
		}
		b = b[n:]
		rs := new(tracepb.ResourceSpans)
		if err := proto.Unmarshal(m, rs); err != nil {
			t.Fatal(err)
		}
		out = append(out, rs)
	}
	return out
}

// plain is an attribute value as plain Go values (slices as []any, maps
// as [][2]any in order), so that what was recorded and what the collector
// decoded compare whatever their types.
func plain(v attribute.Value) any {
	switch v.Type() {
	case attribute.EMPTY:
		return nil
	case attribute.SLICE:
		var out []any
		for _, e := range v.AsSlice() {
			out = append(out, plain(e))
		}
		return out
	case attribute.MAP:
		return plainKVs(v.AsMap())
	case attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE, attribute.STRINGSLICE:
		rv := reflect.ValueOf(v.AsInterface())
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out
	}
	return v.AsInterface()
}

func plainKVs(kvs []attribute.KeyValue) [][2]any {
	var out [][2]any
	for _, kv := range kvs {
		out = append(out, [2]any{string(kv.Key), plain(kv.Value)})
	}
	return out
}

// plainProto is the decoded side of plain.
func plainProto(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case nil:
		return nil
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BytesValue:
		return x.BytesValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, plainProto(e))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		return plainProtoKVs(x.KvlistValue.GetValues())
	}
	return fmt.Sprintf("unexpected %T", v.GetValue())
}

func plainProtoKVs(kvs []*commonpb.KeyValue) [][2]any {
	var out [][2]any
	for _, kv := range kvs {
		out = append(out, [2]any{kv.GetKey(), plainProto(kv.GetValue())})
	}
	return out
}

func sameAttrs(t *testing.T, what string, got []*commonpb.KeyValue, want []attribute.KeyValue) {
	t.Helper()
	if g, w := plainProtoKVs(got), plainKVs(want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: the collector got attributes\n%v\nwant\n%v", what, g, w)
	}
}

// recordSpans makes spans that use everything a span can hold: every
// attribute type, events, links (one to a remote span with a trace
// state), statuses, kinds, a remote parent, two scopes, a resource with a
// schema URL, and limits low enough that something is dropped.
func recordSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0",
		attribute.String("service.name", "handoff-fsm"), attribute.Int("pid", 42))
	rec := tracetest.NewSpanRecorder()
	limits := sdktrace.NewSpanLimits()
	limits.AttributeCountLimit, limits.EventCountLimit, limits.LinkCountLimit = 18, 2, 2
	limits.AttributePerEventCountLimit, limits.AttributePerLinkCountLimit = 1, 1
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res),
		sdktrace.WithRawSpanLimits(limits))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	tr := tp.Tracer("github.com/handoff-fsm/handoff-fsm", trace.WithInstrumentationVersion("v1.2.3"),
		trace.WithSchemaURL("https://opentelemetry.io/schemas/1.20.0"),
		trace.WithInstrumentationAttributes(attribute.String("scope.kind", "test")))
	bare := tp.Tracer("bare")

	ts, err := trace.ParseTraceState("vendor=value,other=1")
	if err != nil {
		t.Fatal(err)
	}
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6},
		TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote)
	ctx, root := tr.Start(ctx, "handoff.dispatch", trace.WithSpanKind(trace.SpanKindClient),
		// The SDK drops the oldest links and events over the limit.
		trace.WithLinks(trace.Link{SpanContext: remote},
			trace.Link{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{8}})},
			trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("why", "caller"), attribute.Bool("dropped", true)}}))
	root.SetAttributes(
		attribute.Bool("b", true), attribute.Int64("i", -7), attribute.Float64("f", 2.5), attribute.String("s", "analyst"),
		attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, 2}),
		attribute.Float64Slice("fs", []float64{0.5}), attribute.StringSlice("ss", []string{"a", "b"}),
		attribute.ByteSlice("bytes", []byte{0, 1, 255}),
		attribute.Slice("mixed", attribute.IntValue(1), attribute.StringValue("two"), attribute.SliceValue(attribute.BoolValue(true))),
		attribute.Map("m", attribute.String("k", "v"), attribute.Map("inner", attribute.Int("n", 3))),
		attribute.KeyValue{Key: "empty"},
		// Zero values are sent too: a oneof says which member is set.
		attribute.String("zero-s", ""), attribute.Int("zero-i", 0), attribute.Bool("zero-b", false), attribute.Float64("zero-f", 0),
	)
	root.SetAttributes(attribute.String("over1", "x"), attribute.String("over2", "y"), attribute.String("over3", "z"))
	root.AddEvent("first, dropped")
	root.AddEvent("second")
	root.AddEvent("transition", trace.WithAttributes(attribute.String("from", "waiting"), attribute.String("to", "done")))
	root.SetStatus(codes.Error, "the agent went quiet")
	_, child := tr.Start(ctx, "look", trace.WithSpanKind(trace.SpanKindInternal))
	child.SetStatus(codes.Ok, "")
	child.End()
	root.End()
	for _, k := range []trace.SpanKind{trace.SpanKindServer, trace.SpanKindProducer, trace.SpanKindConsumer} {
		_, s := bare.Start(context.Background(), "kind "+k.String(), trace.WithSpanKind(k))
		s.End()
	}
	return rec.Ended()
}

// What the exporter POSTs holds everything the SDK recorded of the spans,
// as the in-memory exporter (tracetest) sees them: ids, flags, trace
// state, parent, kind, times, attributes of every type, events, links,
// dropped counts, status, resource and scopes with their schema URLs.
func TestTheCollectorGetsEverythingTheSpansHold(t *testing.T) {
	col := newCollector(t)
	spans := recordSpans(t)
	exp := New(Config{URL: col.URL + "/v1/traces"})
	if err := exp.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	reqs, bodies := col.got()
	if len(bodies) != 1 {
		t.Fatalf("%d requests, want 1", len(bodies))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		t.Errorf("request %s %s (%s); want a POST of application/x-protobuf to /v1/traces", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	}
	rss := decodeRequest(t, bodies[0])
	if len(rss) != 1 {
		t.Fatalf("%d ResourceSpans, want 1 (one resource)", len(rss))
	}
	rs := rss[0]
	stubs := tracetest.SpanStubsFromReadOnlySpans(spans)
	if rs.GetSchemaUrl() != "https://opentelemetry.io/schemas/1.26.0" {
		t.Errorf("resource schema URL %q", rs.GetSchemaUrl())
	}
	sameAttrs(t, "resource", rs.GetResource().GetAttributes(), stubs[0].Resource.Attributes())

	var scopes []instrumentation.Scope
	for _, s := range stubs {
		if !slices.Contains(scopes, s.InstrumentationScope) {
			scopes = append(scopes, s.InstrumentationScope)
		}
	}
	if len(rs.GetScopeSpans()) != len(scopes) {
		t.Fatalf("%d ScopeSpans, want %d", len(rs.GetScopeSpans()), len(scopes))
	}
	got := map[trace.SpanID]*tracepb.Span{}
	for i, ss := range rs.GetScopeSpans() {
		want := scopes[i]
		if sc := ss.GetScope(); sc.GetName() != want.Name || sc.GetVersion() != want.Version || ss.GetSchemaUrl() != want.SchemaURL {
			t.Errorf("scope %d: %q %q %q, want %+v", i, sc.GetName(), sc.GetVersion(), ss.GetSchemaUrl(), want)
		}
		sameAttrs(t, "scope "+want.Name, ss.GetScope().GetAttributes(), want.Attributes.ToSlice())
		for _, sp := range ss.GetSpans() {
			got[trace.SpanID(sp.GetSpanId())] = sp
			for _, st := range stubs {
				if st.SpanContext.SpanID() == trace.SpanID(sp.GetSpanId()) && st.InstrumentationScope != want {
					t.Errorf("span %q is under scope %q, want %q", sp.GetName(), want.Name, st.InstrumentationScope.Name)
				}
			}
		}
	}
	if len(got) != len(stubs) {
		t.Fatalf("the collector got %d spans, want %d", len(got), len(stubs))
	}
	for _, st := range stubs {
		sp := got[st.SpanContext.SpanID()]
		if sp == nil {
			t.Fatalf("span %q is missing", st.Name)
		}
		checkSpan(t, sp, st)
	}
	// The test's spans do use what it means to check.
	root := stubs[len(stubs)-4]
	if root.Name != "handoff.dispatch" || root.DroppedAttributes == 0 || root.DroppedEvents == 0 || root.DroppedLinks == 0 ||
		root.Events[1].DroppedAttributeCount == 0 || root.Links[1].DroppedAttributeCount == 0 || !root.Parent.IsRemote() {
		t.Fatalf("the test's root span does not drop and link as meant: %+v", root)
	}
}

func checkSpan(t *testing.T, sp *tracepb.Span, st tracetest.SpanStub) {
	t.Helper()
	name := st.Name
	tid := st.SpanContext.TraceID()
	if !bytes.Equal(sp.GetTraceId(), tid[:]) || sp.GetName() != st.Name || sp.GetTraceState() != st.SpanContext.TraceState().String() {
		t.Errorf("%s: trace id %x name %q trace state %q", name, sp.GetTraceId(), sp.GetName(), sp.GetTraceState())
	}
	wantParent := []byte(nil)
	if p := st.Parent.SpanID(); p.IsValid() {
		wantParent = p[:]
	}
	if !bytes.Equal(sp.GetParentSpanId(), wantParent) {
		t.Errorf("%s: parent %x, want %x", name, sp.GetParentSpanId(), wantParent)
	}
	wantFlags := uint32(st.SpanContext.TraceFlags()) | 0x100
	if st.Parent.IsRemote() {
		wantFlags |= 0x200
	}
	if sp.GetFlags() != wantFlags {
		t.Errorf("%s: flags %#x, want %#x", name, sp.GetFlags(), wantFlags)
	}
	if int(sp.GetKind()) != int(st.SpanKind) {
		// The SDK's kinds and OTLP's are numbered alike (1 internal … 5 consumer).
		t.Errorf("%s: kind %v, want %v", name, sp.GetKind(), st.SpanKind)
	}
	if sp.GetStartTimeUnixNano() != uint64(st.StartTime.UnixNano()) || sp.GetEndTimeUnixNano() != uint64(st.EndTime.UnixNano()) {
		t.Errorf("%s: times %d–%d, want %v–%v", name, sp.GetStartTimeUnixNano(), sp.GetEndTimeUnixNano(), st.StartTime, st.EndTime)
	}
	sameAttrs(t, name, sp.GetAttributes(), st.Attributes)
	if int(sp.GetDroppedAttributesCount()) != st.DroppedAttributes || int(sp.GetDroppedEventsCount()) != st.DroppedEvents ||
		int(sp.GetDroppedLinksCount()) != st.DroppedLinks {
		t.Errorf("%s: dropped %d attributes, %d events, %d links; want %d, %d, %d", name, sp.GetDroppedAttributesCount(),
			sp.GetDroppedEventsCount(), sp.GetDroppedLinksCount(), st.DroppedAttributes, st.DroppedEvents, st.DroppedLinks)
	}
	wantCode := map[codes.Code]tracepb.Status_StatusCode{codes.Unset: tracepb.Status_STATUS_CODE_UNSET,
		codes.Ok: tracepb.Status_STATUS_CODE_OK, codes.Error: tracepb.Status_STATUS_CODE_ERROR}[st.Status.Code]
	if sp.GetStatus().GetCode() != wantCode || sp.GetStatus().GetMessage() != st.Status.Description {
		t.Errorf("%s: status %v %q, want %v %q", name, sp.GetStatus().GetCode(), sp.GetStatus().GetMessage(), wantCode, st.Status.Description)
	}
	if len(sp.GetEvents()) != len(st.Events) {
		t.Fatalf("%s: %d events, want %d", name, len(sp.GetEvents()), len(st.Events))
	}
	for i, e := range st.Events {
		ge := sp.GetEvents()[i]
		if ge.GetName() != e.Name || ge.GetTimeUnixNano() != uint64(e.Time.UnixNano()) || int(ge.GetDroppedAttributesCount()) != e.DroppedAttributeCount {
			t.Errorf("%s: event %d is %q at %d (dropped %d), want %+v", name, i, ge.GetName(), ge.GetTimeUnixNano(), ge.GetDroppedAttributesCount(), e)
		}
		sameAttrs(t, name+" event "+e.Name, ge.GetAttributes(), e.Attributes)
	}
	if len(sp.GetLinks()) != len(st.Links) {
		t.Fatalf("%s: %d links, want %d", name, len(sp.GetLinks()), len(st.Links))
	}
	for i, l := range st.Links {
		gl := sp.GetLinks()[i]
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		lflags := uint32(l.SpanContext.TraceFlags()) | 0x100
		if l.SpanContext.IsRemote() {
			lflags |= 0x200
		}
		if !bytes.Equal(gl.GetTraceId(), ltid[:]) || !bytes.Equal(gl.GetSpanId(), lsid[:]) || gl.GetTraceState() != l.SpanContext.TraceState().String() ||
			gl.GetFlags() != lflags || int(gl.GetDroppedAttributesCount()) != l.DroppedAttributeCount {
			t.Errorf("%s: link %d is %v, want %+v", name, i, gl, l)
		}
		sameAttrs(t, name+" link", gl.GetAttributes(), l.Attributes)
	}
}

// A busy collector (503, 429) is tried again; one that refuses the
// request (400) is not, and the error says what it answered.
func TestBusyCollectorIsRetriedARefusalIsNot(t *testing.T) {
	spans := recordSpans(t)[:1]
	col := newCollector(t, http.StatusServiceUnavailable, http.StatusTooManyRequests)
	if err := New(Config{URL: col.URL}).ExportSpans(context.Background(), spans); err != nil {
		t.Fatalf("after two busy answers: %v", err)
	}
	if _, bodies := col.got(); len(bodies) != 3 || !bytes.Equal(bodies[0], bodies[2]) {
		t.Fatalf("%d requests, want 3 alike", len(bodies))
	}

	col = newCollector(t, http.StatusBadRequest)
	err := New(Config{URL: col.URL}).ExportSpans(context.Background(), spans)
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("a 400: error %v, want one naming the status and the body", err)
	}
	if _, bodies := col.got(); len(bodies) != 1 {
		t.Fatalf("a 400 was tried %d times, want once", len(bodies))
	}

	col = newCollector(t, 503, 503, 503, 503, 503)
	err = New(Config{URL: col.URL}).ExportSpans(context.Background(), spans)
	if _, bodies := col.got(); err == nil || len(bodies) != maxAttempts {
		t.Fatalf("an always busy collector: error %v after %d requests, want an error after %d", err, len(bodies), maxAttempts)
	}
}

// Headers and gzip as configured: the body inflates to the same request.
func TestHeadersAndGzip(t *testing.T) {
	spans := recordSpans(t)
	col := newCollector(t)
	exp := New(Config{URL: col.URL, Gzip: true, Headers: map[string]string{"Api-Key": "secret value"}, UserAgent: "handoff-fsm/test"})
	if err := exp.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	reqs, bodies := col.got()
	r := reqs[0]
	if r.Header.Get("Api-Key") != "secret value" || r.Header.Get("Content-Encoding") != "gzip" || r.Header.Get("User-Agent") != "handoff-fsm/test" {
		t.Errorf("headers %v", r.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(bodies[0]))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(decodeRequest(t, b)[0].GetScopeSpans()); n != 2 {
		t.Fatalf("the inflated request holds %d scopes, want 2", n)
	}
}

// A collector that takes only part of the spans says so in its answer's
// partial_success; the export's error repeats it.
func TestPartialSuccessIsAnError(t *testing.T) {
	col := newCollector(t)
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, 2)
	ps = protowire.AppendTag(ps, 2, protowire.BytesType)
	ps = protowire.AppendString(ps, "too old")
	col.mu.Lock()
	col.answer = protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), ps)
	col.mu.Unlock()
	err := New(Config{URL: col.URL}).ExportSpans(context.Background(), recordSpans(t))
	if err == nil || !strings.Contains(err.Error(), "rejected 2 spans: too old") {
		t.Fatalf("error %v, want the partial success", err)
	}
	col.mu.Lock()
	col.answer = protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), nil)
	col.mu.Unlock()
	if err := New(Config{URL: col.URL}).ExportSpans(context.Background(), recordSpans(t)); err != nil {
		t.Fatalf("an empty partial_success: %v", err)
	}
}

// Through a batch processor, as handoff-fsm uses it: the provider's
// Shutdown flushes the queued spans to the collector, and the exporter
// refuses spans after its own Shutdown.
func TestShutdownFlushes(t *testing.T) {
	col := newCollector(t)
	exp := New(Config{URL: col.URL})
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	_, s := tp.Tracer("t").Start(context.Background(), "queued")
	s.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, bodies := col.got(); len(bodies) != 1 || !bytes.Contains(bodies[0], []byte("queued")) {
		t.Fatalf("after Shutdown the collector has %d requests; want the queued span's", len(bodies))
	}
	if err := exp.ExportSpans(context.Background(), recordSpans(t)); err == nil {
		t.Fatal("spans were taken after Shutdown")
	}
}

// OTEL_EXPORTER_OTLP_CERTIFICATE names the roots an https collector is
// trusted by.
func TestHTTPSWithTheCertificateFromTheEnvironment(t *testing.T) {
	var got atomic.Int32
	col := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
	defer col.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: col.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": col.URL + "/v1/traces"}
	cfg, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := New(cfg).ExportSpans(context.Background(), recordSpans(t)); err == nil {
		t.Fatal("an untrusted certificate was accepted")
	}
	env["OTEL_EXPORTER_OTLP_CERTIFICATE"] = ca
	if cfg, err = ConfigFromEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if err := New(cfg).ExportSpans(context.Background(), recordSpans(t)); err != nil || got.Load() != 1 {
		t.Fatalf("with the certificate trusted: %v (%d requests)", err, got.Load())
	}
}
