package otlphttp

import (
	"math"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// resourceSpans groups spans as OTLP does: one ResourceSpans per resource,
// in it one ScopeSpans per instrumentation scope, each in the order first
// seen (the export is then the same for the same spans).
func resourceSpans(spans []sdktrace.ReadOnlySpan) []*tracepb.ResourceSpans {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	var out []*tracepb.ResourceSpans
	byResource := map[attribute.Distinct]*tracepb.ResourceSpans{}
	byScope := map[scopeKey]*tracepb.ScopeSpans{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rs, ok := byResource[rk]
		if !ok {
			rs = &tracepb.ResourceSpans{Resource: resourceProto(res), SchemaUrl: res.SchemaURL()}
			byResource[rk] = rs
			out = append(out, rs)
		}
		scope := s.InstrumentationScope()
		sk := scopeKey{rk, scope}
		ss, ok := byScope[sk]
		if !ok {
			ss = &tracepb.ScopeSpans{Scope: scopeProto(scope), SchemaUrl: scope.SchemaURL}
			byScope[sk] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, spanProto(s))
	}
	return out
}

// resourceProto is r's attributes; nil for no resource.
func resourceProto(r *resource.Resource) *resourcepb.Resource {
	if r == nil {
		return nil
	}
	return &resourcepb.Resource{Attributes: iterProto(r.Iter())}
}

// scopeProto is the instrumentation scope; nil for the zero scope, which
// OTLP leaves out.
func scopeProto(s instrumentation.Scope) *commonpb.InstrumentationScope {
	if s == (instrumentation.Scope{}) {
		return nil
	}
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: iterProto(s.Attributes.Iter())}
}

// spanProto is one span with everything the SDK recorded of it.
func spanProto(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	st := s.Status()
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Flags:                  flags(sc.TraceFlags(), s.Parent()),
		Name:                   s.Name(),
		Kind:                   kindProto(s.SpanKind()),
		StartTimeUnixNano:      uint64(max(0, s.StartTime().UnixNano())),
		EndTimeUnixNano:        uint64(max(0, s.EndTime().UnixNano())),
		Attributes:             attrsProto(s.Attributes()),
		DroppedAttributesCount: count(s.DroppedAttributes()),
		Events:                 eventsProto(s.Events()),
		DroppedEventsCount:     count(s.DroppedEvents()),
		Links:                  linksProto(s.Links()),
		DroppedLinksCount:      count(s.DroppedLinks()),
		Status:                 &tracepb.Status{Code: statusProto(st.Code), Message: st.Description},
	}
	if psid := s.Parent().SpanID(); psid.IsValid() {
		p.ParentSpanId = psid[:]
	}
	return p
}

// flags are the W3C trace flags in the low byte, and whether the parent
// (or the linked span) is remote, with the bit that says that is known.
func flags(tf trace.TraceFlags, other trace.SpanContext) uint32 {
	f := uint32(tf) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)
	if other.IsRemote() {
		f |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	}
	return f
}

// count is a dropped count as OTLP's uint32, clamped.
func count(n int) uint32 {
	return uint32(min(max(n, 0), math.MaxUint32))
}

func kindProto(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

func statusProto(c codes.Code) tracepb.Status_StatusCode {
	switch c {
	case codes.Ok:
		return tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		return tracepb.Status_STATUS_CODE_ERROR
	}
	return tracepb.Status_STATUS_CODE_UNSET
}

func eventsProto(es []sdktrace.Event) []*tracepb.Span_Event {
	if len(es) == 0 {
		return nil
	}
	out := make([]*tracepb.Span_Event, len(es))
	for i, e := range es {
		out[i] = &tracepb.Span_Event{Name: e.Name, TimeUnixNano: uint64(max(0, e.Time.UnixNano())),
			Attributes: attrsProto(e.Attributes), DroppedAttributesCount: count(e.DroppedAttributeCount)}
	}
	return out
}

func linksProto(ls []sdktrace.Link) []*tracepb.Span_Link {
	if len(ls) == 0 {
		return nil
	}
	out := make([]*tracepb.Span_Link, len(ls))
	for i, l := range ls {
		tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		out[i] = &tracepb.Span_Link{TraceId: tid[:], SpanId: sid[:], TraceState: l.SpanContext.TraceState().String(),
			Flags: flags(l.SpanContext.TraceFlags(), l.SpanContext), Attributes: attrsProto(l.Attributes),
			DroppedAttributesCount: count(l.DroppedAttributeCount)}
	}
	return out
}

func attrsProto(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = &commonpb.KeyValue{Key: string(kv.Key), Value: valueProto(kv.Value)}
	}
	return out
}

func iterProto(it attribute.Iterator) []*commonpb.KeyValue {
	if it.Len() == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, 0, it.Len())
	for it.Next() {
		kv := it.Attribute()
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: valueProto(kv.Value)})
	}
	return out
}

// valueProto is an attribute value as OTLP's AnyValue: slices become
// arrays, maps key-value lists, an empty value an AnyValue with nothing
// set; a type this code does not know is the string "INVALID", as the
// official exporter sends.
func valueProto(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.EMPTY:
		return &commonpb.AnyValue{}
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BYTESLICE:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		return array(v.AsSlice(), func(v attribute.Value) attribute.Value { return v })
	case attribute.MAP:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: attrsProto(v.AsMap())}}}
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "INVALID"}}
}

// array is the elements of a slice attribute as an OTLP array.
func array[T any](elems []T, value func(T) attribute.Value) *commonpb.AnyValue {
	vals := make([]*commonpb.AnyValue, len(elems))
	for i, e := range elems {
		vals[i] = valueProto(value(e))
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vals}}}
}
