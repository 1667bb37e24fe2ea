package sqsfake

import (
	"encoding/base64"
	"math"
	"math/big"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/document"
	"github.com/aws/smithy-go/encoding"
	smithytime "github.com/aws/smithy-go/time"
	"github.com/aws/smithy-go/traits"
)

// The answers of the query protocol (wire_query.go) are XML, in the shape the SQS model gives its
// outputs for awsQuery (the xmlName and xmlFlattened traits the SDK's schemas carry, the same
// model aws-sdk-go v1.47.5's api-2.json describes with locationName and flattened):
//
//	<?xml version="1.0"?><SendMessageResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/">
//	<SendMessageResult><MD5OfMessageBody>…</MD5OfMessageBody><MessageId>…</MessageId></SendMessageResult>
//	<ResponseMetadata><RequestId>…</RequestId></ResponseMetadata></SendMessageResponse>
//
// (on one line). The nine operations the model gives no output (DeleteMessage,
// ChangeMessageVisibility, …) have no Result element. Lists and maps are flattened: a
// receive repeats <Message>, a message's system attributes are <Attribute><Name/><Value/>
// </Attribute> pairs, its message attributes <MessageAttribute><Name/><Value><StringValue/>
// <DataType/></Value></MessageAttribute>, ListQueues repeats <QueueUrl>.

// queryNamespace is the XML namespace of every query answer (the model's xmlNamespace).
const queryNamespace = "http://queue.amazonaws.com/doc/2012-11-05/"

// xmlWriter writes the output of an operation as the query protocol's XML. It implements
// smithy.ShapeSerializer, so the SDK's generated Serialize methods drive it, as they drive
// jsonWriter. Entries of a map are written in key order, so the same calls give the same
// bytes. It recycles itself (newXMLWriter, release).
type xmlWriter struct {
	buf    []byte
	frames []xmlFrame
	// op is the operation: the root structure is its <op>Result element.
	op string
	// keys holds the entries of the maps still open, innermost last.
	keys []mapEntry
	// sorter is where CloseMap reorders entries.
	sorter entrySorter
}

// An xmlFrame is an open structure, list or map.
type xmlFrame struct {
	kind xmlFrameKind
	// name, followed by suffix, is the element the frame closes with; "" for a flattened
	// list or map and for a root structure the model gives no element.
	name, suffix string
	// open is where the element's content starts, to write an empty element as <name/>.
	open int
	// item names the element of each item of a list, or of each entry of a map.
	item string
	// key and value name the elements of a map entry's key and value.
	key, value string
	// keys is where a map's entries start in xmlWriter.keys.
	keys int
	// entry is set while a map entry's element is open.
	entry bool
}

type xmlFrameKind uint8

const (
	xmlStruct xmlFrameKind = iota
	xmlList
	xmlMap
)

var xmlWriters = sync.Pool{New: func() any { return &xmlWriter{buf: make([]byte, 0, 1024)} }}

// newXMLWriter returns a writer from the pool that has written the response's opening for
// operation op.
func newXMLWriter(op string) *xmlWriter {
	w := xmlWriters.Get().(*xmlWriter)
	w.buf, w.frames, w.keys = w.buf[:0], w.frames[:0], w.keys[:0]
	w.op = op
	w.buf = append(w.buf, `<?xml version="1.0"?><`...)
	w.buf = append(w.buf, op...)
	w.buf = append(w.buf, `Response xmlns="`+queryNamespace+`">`...)
	return w
}

// finish writes the response metadata and closes the response of operation op.
func (w *xmlWriter) finish(op, requestID string) {
	w.buf = append(w.buf, "<ResponseMetadata><RequestId>"...)
	w.buf = appendXMLText(w.buf, requestID)
	w.buf = append(w.buf, "</RequestId></ResponseMetadata></"...)
	w.buf = append(w.buf, op...)
	w.buf = append(w.buf, "Response>"...)
}

// release returns w to the pool; its bytes must not be used after.
func (w *xmlWriter) release() {
	if cap(w.buf) > 64<<10 || cap(w.sorter.scratch) > 64<<10 {
		return
	}
	clear(w.keys[:cap(w.keys)])
	xmlWriters.Put(w)
}

var _ smithy.ShapeSerializer = (*xmlWriter)(nil)

// Bytes returns the XML written so far. It is w's buffer, not a copy.
func (w *xmlWriter) Bytes() []byte { return w.buf }

// memberElement is the element name of a structure member: its xmlName, or its name.
func memberElement(s *smithy.Schema) string {
	if t, ok := smithy.SchemaDirectTrait[*traits.XMLName](s); ok {
		return t.Name
	}
	return s.MemberName()
}

// elementOr is the xmlName of a list member or a map key or value, or the protocol's
// default name for it.
func elementOr(s *smithy.Schema, def string) string {
	if s != nil {
		if t, ok := smithy.SchemaDirectTrait[*traits.XMLName](s); ok {
			return t.Name
		}
	}
	return def
}

func flattened(s *smithy.Schema) bool {
	_, ok := smithy.SchemaDirectTrait[*traits.XMLFlattened](s)
	return ok
}

// element names the element of a value written with schema s where the writer stands, inside
// the root structure.
func (w *xmlWriter) element(s *smithy.Schema) string {
	switch f := &w.frames[len(w.frames)-1]; f.kind {
	case xmlList:
		return f.item
	case xmlMap:
		return f.value
	}
	return memberElement(s)
}

func (w *xmlWriter) openTag(name string) { w.openTagSuffixed(name, "") }

func (w *xmlWriter) openTagSuffixed(name, suffix string) {
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, suffix...)
	w.buf = append(w.buf, '>')
}

func (w *xmlWriter) closeTag(name string) { w.closeTagSuffixed(name, "") }

func (w *xmlWriter) closeTagSuffixed(name, suffix string) {
	w.buf = append(w.buf, '<', '/')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, suffix...)
	w.buf = append(w.buf, '>')
}

// text writes a scalar's element around the text that appendText appends.
func (w *xmlWriter) text(s *smithy.Schema, appendText func([]byte) []byte) {
	name := w.element(s)
	w.openTag(name)
	w.buf = appendText(w.buf)
	w.closeTag(name)
}

// WriteStruct implements smithy.ShapeSerializer. The root structure is the Result element,
// unless its schema is nil: the operations without output in the model have none.
func (w *xmlWriter) WriteStruct(s *smithy.Schema) {
	f := xmlFrame{kind: xmlStruct}
	switch {
	case len(w.frames) > 0:
		f.name = w.element(s)
	case s != nil:
		f.name, f.suffix = w.op, "Result"
	}
	if f.name != "" {
		w.openTagSuffixed(f.name, f.suffix)
	}
	f.open = len(w.buf)
	w.frames = append(w.frames, f)
}

// CloseStruct implements smithy.ShapeSerializer.
func (w *xmlWriter) CloseStruct() { w.closeFrame() }

// closeFrame closes the innermost frame's element, as <name/> if it is empty.
func (w *xmlWriter) closeFrame() {
	f := w.frames[len(w.frames)-1]
	w.frames = w.frames[:len(w.frames)-1]
	switch {
	case f.name == "":
	case len(w.buf) == f.open:
		w.buf = append(w.buf[:len(w.buf)-1], '/', '>')
	default:
		w.closeTagSuffixed(f.name, f.suffix)
	}
}

// WriteList implements smithy.ShapeSerializer: a flattened list repeats the member's element
// for each item; another wraps <member> items in it.
func (w *xmlWriter) WriteList(s *smithy.Schema) {
	name := w.element(s)
	if flattened(s) {
		w.frames = append(w.frames, xmlFrame{kind: xmlList, item: name})
		return
	}
	w.openTag(name)
	w.frames = append(w.frames, xmlFrame{kind: xmlList, name: name, open: len(w.buf), item: elementOr(s.ListMember(), "member")})
}

// CloseList implements smithy.ShapeSerializer.
func (w *xmlWriter) CloseList() { w.closeFrame() }

// WriteMap implements smithy.ShapeSerializer: a flattened map repeats the member's element for
// each entry; another wraps <entry> elements in it. An entry holds its key and its value.
func (w *xmlWriter) WriteMap(s *smithy.Schema) {
	f := xmlFrame{kind: xmlMap, keys: len(w.keys), key: elementOr(s.MapKey(), "key"), value: elementOr(s.MapValue(), "value")}
	name := w.element(s)
	if flattened(s) {
		f.item = name
	} else {
		w.openTag(name)
		f.name, f.open, f.item = name, len(w.buf), "entry"
	}
	w.frames = append(w.frames, f)
}

// WriteKey implements smithy.ShapeSerializer: it ends the previous entry and starts one.
func (w *xmlWriter) WriteKey(_ *smithy.Schema, key string) {
	f := &w.frames[len(w.frames)-1]
	if f.entry {
		w.closeTag(f.item)
	}
	f.entry = true
	w.keys = append(w.keys, mapEntry{key: key, start: len(w.buf)})
	w.openTag(f.item)
	w.openTag(f.key)
	w.buf = appendXMLText(w.buf, key)
	w.closeTag(f.key)
}

// CloseMap implements smithy.ShapeSerializer: it puts the map's entries in key order.
func (w *xmlWriter) CloseMap() {
	f := &w.frames[len(w.frames)-1]
	if f.entry {
		w.closeTag(f.item)
	}
	entries := w.keys[f.keys:]
	w.buf = w.sorter.sort(w.buf, entries, "")
	clear(entries)
	w.keys = w.keys[:f.keys]
	w.closeFrame()
}

// WriteUnion implements smithy.ShapeSerializer: the variant's element inside the union's.
// (SQS has no unions.)
func (w *xmlWriter) WriteUnion(s, _ *smithy.Schema) { w.WriteStruct(s) }

// CloseUnion implements smithy.ShapeSerializer.
func (w *xmlWriter) CloseUnion() { w.CloseStruct() }

// WriteNil implements smithy.ShapeSerializer: a member without a value has no element.
func (w *xmlWriter) WriteNil(*smithy.Schema) {}

// WriteBool implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteBool(s *smithy.Schema, v bool) {
	w.text(s, func(b []byte) []byte { return strconv.AppendBool(b, v) })
}

// WriteInt8 implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteInt8(s *smithy.Schema, v int8) { w.WriteInt64(s, int64(v)) }

// WriteInt16 implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteInt16(s *smithy.Schema, v int16) { w.WriteInt64(s, int64(v)) }

// WriteInt32 implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteInt32(s *smithy.Schema, v int32) { w.WriteInt64(s, int64(v)) }

// WriteInt64 implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteInt64(s *smithy.Schema, v int64) {
	name := w.element(s)
	w.openTag(name)
	w.buf = strconv.AppendInt(w.buf, v, 10)
	w.closeTag(name)
}

// WriteFloat32 implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteFloat32(s *smithy.Schema, v float32) { w.writeFloat(s, float64(v), 32) }

// WriteFloat64 implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteFloat64(s *smithy.Schema, v float64) { w.writeFloat(s, v, 64) }

// writeFloat writes a number as the query protocol does, NaN and the infinities by name.
func (w *xmlWriter) writeFloat(s *smithy.Schema, v float64, bits int) {
	w.text(s, func(b []byte) []byte {
		switch {
		case math.IsNaN(v):
			return append(b, "NaN"...)
		case math.IsInf(v, 1):
			return append(b, "Infinity"...)
		case math.IsInf(v, -1):
			return append(b, "-Infinity"...)
		}
		return encoding.EncodeFloat(b, v, bits)
	})
}

// WriteBigInt implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteBigInt(s *smithy.Schema, v *big.Int) {
	if v != nil {
		w.text(s, func(b []byte) []byte { return v.Append(b, 10) })
	}
}

// WriteBigFloat implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteBigFloat(s *smithy.Schema, v *big.Float) {
	if v != nil {
		w.text(s, func(b []byte) []byte { return v.Append(b, 'g', -1) })
	}
}

// WriteString implements smithy.ShapeSerializer.
func (w *xmlWriter) WriteString(s *smithy.Schema, v string) {
	name := w.element(s)
	w.openTag(name)
	w.buf = appendXMLText(w.buf, v)
	w.closeTag(name)
}

// WriteBlob implements smithy.ShapeSerializer: base64.
func (w *xmlWriter) WriteBlob(s *smithy.Schema, v []byte) {
	if v != nil {
		w.text(s, func(b []byte) []byte { return base64.StdEncoding.AppendEncode(b, v) })
	}
}

// WriteTime implements smithy.ShapeSerializer: ISO 8601, the query protocol's default.
func (w *xmlWriter) WriteTime(s *smithy.Schema, v time.Time) {
	w.WriteString(s, smithytime.FormatDateTime(v))
}

// WriteDocument implements smithy.ShapeSerializer. The query protocol has no documents and
// SQS's model none; a document member is left out.
func (w *xmlWriter) WriteDocument(*smithy.Schema, document.Value) {}

// appendXMLText appends s as XML character data that an XML parser reads back as s: &, < and
// > become entities, and a carriage return becomes &#xD; (a parser turns a literal one, and a
// CR LF pair, into a line feed). Tabs and line feeds stay literal. What XML 1.0 cannot carry —
// other control characters, U+FFFE, U+FFFF, bytes that are not UTF-8 — becomes U+FFFD, as
// encoding/xml writes it; SQS refuses such characters in message bodies and attributes.
func appendXMLText(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c == '&':
				esc = "&amp;"
			case c == '<':
				esc = "&lt;"
			case c == '>':
				esc = "&gt;"
			case c == '\r':
				esc = "&#xD;"
			case c < 0x20 && c != '\t' && c != '\n':
				esc = "\ufffd"
			default:
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, esc...)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			start = i + size
		}
		i += size
	}
	return append(b, s[start:]...)
}
