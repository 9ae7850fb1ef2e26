package otlphttp

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The spans are written in the protobuf wire format by hand, field by
// field as opentelemetry-proto's trace/v1, common/v1 and resource/v1
// number them (the tests decode the result with the generated types).
// Linking those types would bring the protobuf runtime, some thirty
// packages whose init (one of them hashes the executable) every
// handoff-fsm process would pay, to send a few spans at most.

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

// appendVarint writes a varint field unless it is 0, proto3's default.
func appendVarint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

func appendFixed64(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

func appendFixed32(b []byte, field int, v uint32) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint32(appendTag(b, field, wireFixed32), v)
}

// appendString writes a string or bytes field unless it is empty.
func appendString[T string | []byte](b []byte, field int, s T) []byte {
	if len(s) == 0 {
		return b
	}
	b = binary.AppendUvarint(appendTag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// appendMessage writes an embedded message, even an empty one: body
// appends its fields, and the length prefix is slid in before them.
func appendMessage(b []byte, field int, body func([]byte) []byte) []byte {
	b = appendTag(b, field, wireBytes)
	start := len(b)
	b = body(b)
	n := len(b) - start
	var lenBuf [binary.MaxVarintLen64]byte
	l := binary.PutUvarint(lenBuf[:], uint64(n))
	b = append(b, lenBuf[:l]...)
	copy(b[start+l:], b[start:start+n])
	copy(b[start:], lenBuf[:l])
	return b
}

// appendRequest writes an ExportTraceServiceRequest of spans: field 1,
// one ResourceSpans per resource, in it one ScopeSpans per
// instrumentation scope, each in the order first seen.
func appendRequest(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	type scopeSpans struct {
		scope instrumentation.Scope
		spans []sdktrace.ReadOnlySpan
	}
	type resourceSpans struct {
		res    *resource.Resource
		scopes []*scopeSpans
	}
	var order []*resourceSpans
	byResource := map[attribute.Distinct]*resourceSpans{}
	byScope := map[scopeKey]*scopeSpans{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rs, ok := byResource[rk]
		if !ok {
			rs = &resourceSpans{res: res}
			byResource[rk] = rs
			order = append(order, rs)
		}
		sk := scopeKey{rk, s.InstrumentationScope()}
		ss, ok := byScope[sk]
		if !ok {
			ss = &scopeSpans{scope: sk.scope}
			byScope[sk] = ss
			rs.scopes = append(rs.scopes, ss)
		}
		ss.spans = append(ss.spans, s)
	}
	for _, rs := range order {
		b = appendMessage(b, 1, func(b []byte) []byte {
			// ResourceSpans: 1 resource, 2 scope_spans, 3 schema_url.
			if rs.res != nil {
				b = appendMessage(b, 1, func(b []byte) []byte {
					// Resource: 1 attributes.
					for it := rs.res.Iter(); it.Next(); {
						b = appendKeyValue(b, 1, it.Attribute())
					}
					return b
				})
			}
			for _, ss := range rs.scopes {
				b = appendMessage(b, 2, func(b []byte) []byte {
					// ScopeSpans: 1 scope, 2 spans, 3 schema_url.
					if ss.scope != (instrumentation.Scope{}) {
						b = appendMessage(b, 1, func(b []byte) []byte {
							// InstrumentationScope: 1 name, 2 version, 3 attributes.
							b = appendString(b, 1, ss.scope.Name)
							b = appendString(b, 2, ss.scope.Version)
							for it := ss.scope.Attributes.Iter(); it.Next(); {
								b = appendKeyValue(b, 3, it.Attribute())
							}
							return b
						})
					}
					for _, s := range ss.spans {
						b = appendMessage(b, 2, func(b []byte) []byte { return appendSpan(b, s) })
					}
					return appendString(b, 3, ss.scope.SchemaURL)
				})
			}
			if rs.res != nil {
				b = appendString(b, 3, rs.res.SchemaURL())
			}
			return b
		})
	}
	return b
}

// appendSpan writes a Span's fields: everything the SDK recorded of it.
func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendString(b, 1, tid[:])
	b = appendString(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	if psid := s.Parent().SpanID(); psid.IsValid() {
		b = appendString(b, 4, psid[:])
	}
	b = appendString(b, 5, s.Name())
	b = appendVarint(b, 6, spanKind(s.SpanKind()))
	b = appendFixed64(b, 7, unixNano(s.StartTime().UnixNano()))
	b = appendFixed64(b, 8, unixNano(s.EndTime().UnixNano()))
	for _, kv := range s.Attributes() {
		b = appendKeyValue(b, 9, kv)
	}
	b = appendVarint(b, 10, count(s.DroppedAttributes()))
	for _, e := range s.Events() {
		b = appendMessage(b, 11, func(b []byte) []byte {
			// Span.Event: 1 time_unix_nano, 2 name, 3 attributes,
			// 4 dropped_attributes_count.
			b = appendFixed64(b, 1, unixNano(e.Time.UnixNano()))
			b = appendString(b, 2, e.Name)
			for _, kv := range e.Attributes {
				b = appendKeyValue(b, 3, kv)
			}
			return appendVarint(b, 4, count(e.DroppedAttributeCount))
		})
	}
	b = appendVarint(b, 12, count(s.DroppedEvents()))
	for _, l := range s.Links() {
		b = appendMessage(b, 13, func(b []byte) []byte {
			// Span.Link: 1 trace_id, 2 span_id, 3 trace_state,
			// 4 attributes, 5 dropped_attributes_count, 6 flags.
			ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = appendString(b, 1, ltid[:])
			b = appendString(b, 2, lsid[:])
			b = appendString(b, 3, l.SpanContext.TraceState().String())
			for _, kv := range l.Attributes {
				b = appendKeyValue(b, 4, kv)
			}
			b = appendVarint(b, 5, count(l.DroppedAttributeCount))
			return appendFixed32(b, 6, flags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = appendVarint(b, 14, count(s.DroppedLinks()))
	st := s.Status()
	b = appendMessage(b, 15, func(b []byte) []byte {
		// Status: 2 message, 3 code.
		b = appendString(b, 2, st.Description)
		return appendVarint(b, 3, statusCode(st.Code))
	})
	return appendFixed32(b, 16, flags(sc.TraceFlags(), s.Parent()))
}

// unixNano is a time as OTLP's unsigned nanoseconds; before 1970 is 0.
func unixNano(ns int64) uint64 { return uint64(max(ns, 0)) }

// count is a dropped count as OTLP's uint32, clamped.
func count(n int) uint64 { return uint64(min(max(n, 0), math.MaxUint32)) }

// flags are the W3C trace flags in the low byte, then OTLP's bits: that
// whether the parent (or the linked span) is remote is known (0x100), and
// that it is (0x200).
func flags(tf trace.TraceFlags, other trace.SpanContext) uint32 {
	f := uint32(tf) | 0x100
	if other.IsRemote() {
		f |= 0x200
	}
	return f
}

// spanKind is OTLP's Span.SpanKind: unspecified 0, internal 1, server 2,
// client 3, producer 4, consumer 5, the numbers OpenTelemetry's
// trace.SpanKind has too (an unknown kind is unspecified).
func spanKind(k trace.SpanKind) uint64 {
	if k < trace.SpanKindInternal || k > trace.SpanKindConsumer {
		return 0
	}
	return uint64(k)
}

// statusCode is OTLP's Status.StatusCode: unset 0, ok 1, error 2.
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

// appendKeyValue writes a KeyValue (1 key, 2 value) as field.
func appendKeyValue(b []byte, field int, kv attribute.KeyValue) []byte {
	return appendMessage(b, field, func(b []byte) []byte {
		b = appendString(b, 1, string(kv.Key))
		return appendMessage(b, 2, func(b []byte) []byte { return appendAnyValue(b, kv.Value) })
	})
}

// appendAnyValue writes an AnyValue's fields: the one of its oneof that
// the value's type chooses (1 string, 2 bool, 3 int, 4 double, 5 array,
// 6 kvlist, 7 bytes), written even when zero, as a oneof is; an empty
// value sets none; a type this code does not know is the string
// "INVALID", as the official exporter sends.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.EMPTY:
		return b
	case attribute.BOOL:
		x := uint64(0)
		if v.AsBool() {
			x = 1
		}
		return binary.AppendUvarint(appendTag(b, 2, wireVarint), x)
	case attribute.INT64:
		return binary.AppendUvarint(appendTag(b, 3, wireVarint), uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return binary.LittleEndian.AppendUint64(appendTag(b, 4, wireFixed64), math.Float64bits(v.AsFloat64()))
	case attribute.STRING:
		return appendOneofBytes(b, 1, v.AsString())
	case attribute.BYTESLICE:
		return appendOneofBytes(b, 7, v.AsByteSlice())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), attribute.BoolValue)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), attribute.Int64Value)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), attribute.Float64Value)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), attribute.StringValue)
	case attribute.SLICE:
		return appendArray(b, v.AsSlice(), func(v attribute.Value) attribute.Value { return v })
	case attribute.MAP:
		return appendMessage(b, 6, func(b []byte) []byte {
			// KeyValueList: 1 values.
			for _, kv := range v.AsMap() {
				b = appendKeyValue(b, 1, kv)
			}
			return b
		})
	}
	return appendOneofBytes(b, 1, "INVALID")
}

// appendOneofBytes writes a string or bytes member of a oneof, even empty.
func appendOneofBytes[T string | []byte](b []byte, field int, s T) []byte {
	b = binary.AppendUvarint(appendTag(b, field, wireBytes), uint64(len(s)))
	return append(b, s...)
}

// appendArray writes a slice attribute as an ArrayValue (5; its field 1,
// values).
func appendArray[T any](b []byte, elems []T, value func(T) attribute.Value) []byte {
	return appendMessage(b, 5, func(b []byte) []byte {
		for _, e := range elems {
			b = appendMessage(b, 1, func(b []byte) []byte { return appendAnyValue(b, value(e)) })
		}
		return b
	})
}
