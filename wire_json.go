package sqsfake

import (
	"bytes"
	"encoding/base64"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
	smithydocumentjson "github.com/aws/smithy-go/document/json"
	"github.com/aws/smithy-go/encoding"
	smithytime "github.com/aws/smithy-go/time"
	"github.com/aws/smithy-go/traits"
)

// jsonWriter writes the outputs of door 3 as awsJson1_0 JSON. It implements
// smithy.ShapeSerializer, so the SDK's generated Serialize methods drive it, and it writes
// what the SDK's own awsJson1_0 serializer writes — member names as keys, the same string
// escapes, base64 blobs, epoch-second timestamps — with one difference: the entries of a map
// are written in key order rather than Go's map order, so that an answer is the same bytes
// every time (GetQueueAttributes, message attributes, tags). TestJSONWriterMatchesSDK holds
// it to the SDK's serializer.
//
// It writes into one buffer and recycles itself (newJSONWriter, release), which keeps an
// answer to one allocation-free pass; the SDK's serializer builds an HTTP request around each.
type jsonWriter struct {
	buf    []byte
	frames []jsonFrame
	// keys holds the entries of the maps still open, innermost last.
	keys []mapEntry
	// keyed is set when a map key has just been written, so the next value needs none.
	keyed bool
	// sorter is where CloseMap reorders entries.
	sorter entrySorter
}

// A jsonFrame is an open struct, map, union or list.
type jsonFrame struct {
	object bool // members are written with their names as keys
	n      int  // values written so far
	keys   int  // for a map, where its entries start in keys; -1 otherwise
}

// A mapEntry is one entry of an open map: its key and where `"key":value` starts in buf.
type mapEntry struct {
	key   string
	start int
}

var jsonWriters = sync.Pool{New: func() any { return &jsonWriter{buf: make([]byte, 0, 1024)} }}

// newJSONWriter returns an empty writer from the pool.
func newJSONWriter() *jsonWriter {
	w := jsonWriters.Get().(*jsonWriter)
	w.buf, w.frames, w.keys, w.keyed = w.buf[:0], w.frames[:0], w.keys[:0], false
	return w
}

// release returns w to the pool; its bytes must not be used after.
func (w *jsonWriter) release() {
	if cap(w.buf) > 64<<10 || cap(w.sorter.scratch) > 64<<10 {
		return
	}
	clear(w.keys[:cap(w.keys)]) // drop the key strings
	jsonWriters.Put(w)
}

var _ smithy.ShapeSerializer = (*jsonWriter)(nil)

// Bytes returns the JSON written so far. It is w's buffer, not a copy.
func (w *jsonWriter) Bytes() []byte { return w.buf }

// prefix writes what comes before a value: a comma after an earlier value and, in a struct,
// the member's name as key. A value that follows a map key needs neither.
func (w *jsonWriter) prefix(schema *smithy.Schema) {
	if w.keyed {
		w.keyed = false
		return
	}
	if len(w.frames) == 0 {
		return
	}
	f := &w.frames[len(w.frames)-1]
	if f.n > 0 {
		w.buf = append(w.buf, ',')
	}
	f.n++
	if f.object && schema != nil {
		if name := schema.MemberName(); name != "" {
			w.buf = appendJSONString(w.buf, name)
			w.buf = append(w.buf, ':')
		}
	}
}

func (w *jsonWriter) open(schema *smithy.Schema, bracket byte, f jsonFrame) {
	w.prefix(schema)
	w.buf = append(w.buf, bracket)
	w.frames = append(w.frames, f)
}

func (w *jsonWriter) close(bracket byte) {
	w.buf = append(w.buf, bracket)
	w.frames = w.frames[:len(w.frames)-1]
}

// WriteStruct implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteStruct(schema *smithy.Schema) {
	w.open(schema, '{', jsonFrame{object: true, keys: -1})
}

// CloseStruct implements smithy.ShapeSerializer.
func (w *jsonWriter) CloseStruct() { w.close('}') }

// WriteList implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteList(schema *smithy.Schema) {
	w.open(schema, '[', jsonFrame{keys: -1})
}

// CloseList implements smithy.ShapeSerializer.
func (w *jsonWriter) CloseList() { w.close(']') }

// WriteMap implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteMap(schema *smithy.Schema) {
	w.open(schema, '{', jsonFrame{keys: len(w.keys)})
}

// WriteKey implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteKey(_ *smithy.Schema, key string) {
	f := &w.frames[len(w.frames)-1]
	if f.n > 0 {
		w.buf = append(w.buf, ',')
	}
	f.n++
	if f.keys >= 0 {
		w.keys = append(w.keys, mapEntry{key: key, start: len(w.buf)})
	}
	w.buf = appendJSONString(w.buf, key)
	w.buf = append(w.buf, ':')
	w.keyed = true
}

// CloseMap implements smithy.ShapeSerializer: it puts the map's entries in key order.
func (w *jsonWriter) CloseMap() {
	f := w.frames[len(w.frames)-1]
	entries := w.keys[f.keys:]
	w.buf = w.sorter.sort(w.buf, entries, ",")
	clear(entries)
	w.keys = w.keys[:f.keys]
	w.close('}')
}

func compareEntries(a, b mapEntry) int { return strings.Compare(a.key, b.key) }

// entrySorter puts the entries of a map in key order, for the writers of both protocols. Its
// slices are scratch space kept from one map to the next.
type entrySorter struct {
	scratch []byte
	ends    []int
	order   []int
}

// sort reorders the entries, which run one after another to the end of buf with sep between
// them, by key, and returns buf.
func (s *entrySorter) sort(buf []byte, entries []mapEntry, sep string) []byte {
	if len(entries) < 2 || slices.IsSortedFunc(entries, compareEntries) {
		return buf
	}
	// Entry i runs from its start to the separator before entry i+1, the last to the end.
	region := entries[0].start
	s.scratch = append(s.scratch[:0], buf[region:]...)
	s.ends, s.order = s.ends[:0], s.order[:0]
	for i := range entries {
		end := len(buf)
		if i+1 < len(entries) {
			end = entries[i+1].start - len(sep)
		}
		s.ends = append(s.ends, end-region)
		s.order = append(s.order, i)
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return strings.Compare(entries[a].key, entries[b].key) })
	buf = buf[:region]
	for n, i := range s.order {
		if n > 0 {
			buf = append(buf, sep...)
		}
		buf = append(buf, s.scratch[entries[i].start-region:s.ends[i]]...)
	}
	return buf
}

// WriteUnion implements smithy.ShapeSerializer: {"variant":value}.
func (w *jsonWriter) WriteUnion(schema, variant *smithy.Schema) {
	w.open(schema, '{', jsonFrame{object: true, keys: -1})
	w.prefix(variant)
	w.keyed = true
}

// CloseUnion implements smithy.ShapeSerializer.
func (w *jsonWriter) CloseUnion() {
	w.keyed = false
	w.close('}')
}

// WriteNil implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteNil(schema *smithy.Schema) {
	w.prefix(schema)
	w.buf = append(w.buf, "null"...)
}

// WriteBool implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteBool(schema *smithy.Schema, v bool) {
	w.prefix(schema)
	if v {
		w.buf = append(w.buf, "true"...)
	} else {
		w.buf = append(w.buf, "false"...)
	}
}

// WriteInt8 implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteInt8(schema *smithy.Schema, v int8) { w.WriteInt64(schema, int64(v)) }

// WriteInt16 implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteInt16(schema *smithy.Schema, v int16) { w.WriteInt64(schema, int64(v)) }

// WriteInt32 implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteInt32(schema *smithy.Schema, v int32) { w.WriteInt64(schema, int64(v)) }

// WriteInt64 implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteInt64(schema *smithy.Schema, v int64) {
	w.prefix(schema)
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// WriteFloat32 implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteFloat32(schema *smithy.Schema, v float32) {
	w.writeFloat(schema, float64(v), 32)
}

// WriteFloat64 implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteFloat64(schema *smithy.Schema, v float64) { w.writeFloat(schema, v, 64) }

// writeFloat writes a number, or the strings Smithy's JSON protocols use for the values JSON
// has no number for.
func (w *jsonWriter) writeFloat(schema *smithy.Schema, v float64, bits int) {
	w.prefix(schema)
	switch {
	case math.IsNaN(v):
		w.buf = append(w.buf, `"NaN"`...)
	case math.IsInf(v, 1):
		w.buf = append(w.buf, `"Infinity"`...)
	case math.IsInf(v, -1):
		w.buf = append(w.buf, `"-Infinity"`...)
	default:
		w.buf = encoding.EncodeFloat(w.buf, v, bits)
	}
}

// WriteBigInt implements smithy.ShapeSerializer: the integer as a JSON number.
func (w *jsonWriter) WriteBigInt(schema *smithy.Schema, v *big.Int) {
	if v == nil {
		w.WriteNil(schema)
		return
	}
	w.prefix(schema)
	w.buf = v.Append(w.buf, 10)
}

// WriteBigFloat implements smithy.ShapeSerializer: the number in the shortest decimal form
// that reads back the same.
func (w *jsonWriter) WriteBigFloat(schema *smithy.Schema, v *big.Float) {
	if v == nil {
		w.WriteNil(schema)
		return
	}
	if v.IsInf() {
		w.writeFloat(schema, math.Inf(v.Sign()), 64)
		return
	}
	w.prefix(schema)
	w.buf = v.Append(w.buf, 'g', -1)
}

// WriteString implements smithy.ShapeSerializer.
func (w *jsonWriter) WriteString(schema *smithy.Schema, v string) {
	w.prefix(schema)
	w.buf = appendJSONString(w.buf, v)
}

// WriteBlob implements smithy.ShapeSerializer: base64, or null for a nil blob.
func (w *jsonWriter) WriteBlob(schema *smithy.Schema, v []byte) {
	w.prefix(schema)
	if v == nil {
		w.buf = append(w.buf, "null"...)
		return
	}
	w.buf = append(w.buf, '"')
	w.buf = base64.StdEncoding.AppendEncode(w.buf, v)
	w.buf = append(w.buf, '"')
}

// WriteTime implements smithy.ShapeSerializer: epoch seconds unless the member's
// timestampFormat trait says otherwise.
func (w *jsonWriter) WriteTime(schema *smithy.Schema, v time.Time) {
	format := "epoch-seconds"
	if t, ok := smithy.SchemaTrait[*traits.TimestampFormat](schema); ok {
		format = t.Format
	}
	switch format {
	case "date-time":
		w.WriteString(schema, smithytime.FormatDateTime(v))
	case "http-date":
		w.WriteString(schema, smithytime.FormatHTTPDate(v))
	default:
		w.WriteFloat64(schema, smithytime.FormatEpochSeconds(v))
	}
}

// WriteDocument implements smithy.ShapeSerializer: a document as the JSON it stands for.
func (w *jsonWriter) WriteDocument(schema *smithy.Schema, v document.Value) {
	switch v := v.(type) {
	case nil, document.Null:
		w.WriteNil(schema)
	case document.Boolean:
		w.WriteBool(schema, bool(v))
	case document.Number:
		w.prefix(schema)
		w.buf = append(w.buf, v...)
	case document.String:
		w.WriteString(schema, string(v))
	case document.Blob:
		w.WriteBlob(schema, []byte(v))
	case document.Timestamp:
		w.WriteTime(schema, time.Time(v))
	case document.List:
		w.WriteList(schema)
		for _, item := range v {
			w.WriteDocument(nil, item)
		}
		w.CloseList()
	case document.Map:
		w.WriteMap(schema)
		for k, item := range v {
			w.WriteKey(nil, k)
			w.WriteDocument(nil, item)
		}
		w.CloseMap()
	case document.Structure:
		w.WriteMap(schema)
		for k, item := range v.Members {
			w.WriteKey(nil, k)
			w.WriteDocument(nil, item)
		}
		w.CloseMap()
	case document.Opaque:
		w.writeOpaque(schema, v.Value)
	case *document.Opaque:
		w.writeOpaque(schema, v.Value)
	default:
		w.WriteNil(schema)
	}
}

// writeOpaque writes a Go value held in a document with smithy's document encoder.
func (w *jsonWriter) writeOpaque(schema *smithy.Schema, v any) {
	var p []byte
	var err error
	if m, ok := v.(document.Marshaler); ok {
		p, err = m.MarshalSmithyDocument()
	} else {
		p, err = smithydocumentjson.NewEncoder().Encode(v)
	}
	if err != nil || len(bytes.TrimSpace(p)) == 0 {
		p = []byte("null")
	}
	w.prefix(schema)
	w.buf = append(w.buf, p...)
}

// appendJSONString appends s as a JSON string, escaped as the SDK's serializer escapes:
// quote, backslash, control characters and DEL (as \n, \r, \t or \u00XX), U+2028 and
// U+2029; a byte that is not UTF-8 becomes U+FFFD. Everything else is written as it is.
func appendJSONString(b []byte, s string) []byte { return appendJSONText(b, s, false) }

// appendJSONRaw appends s as appendJSONString does, except that bytes which are not UTF-8
// are kept as they are: the query door hands its parameters to the awsJson1_0 path this way,
// so that what the JSON path refuses in a JSON body it refuses in a form too.
func appendJSONRaw(b []byte, s string) []byte { return appendJSONText(b, s, true) }

// appendJSONText is appendJSONString, or with keepBytes appendJSONRaw.
func appendJSONText(b []byte, s string, keepBytes bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if keepBytes {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
