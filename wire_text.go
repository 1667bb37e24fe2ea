package sqsfake

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// Reading strings as they were written. encoding/json decodes a lone UTF-16 surrogate escape
// ("\ud800") and every byte that is not UTF-8 to U+FFFD without a word, so a message decoded
// from the wire could be stored as other text than was sent. SQS takes neither: a surrogate
// is outside its set of characters (SPEC.md §5.8), and so is what is not UTF-8. The wire door
// therefore looks at the strings of a request as they were written, when the body has
// anything encoding/json could alter (plainText), and notes their faults for the engine as
// nonUnicode (callnotes.go), or refuses the request. Requests without such bytes — every request
// an SDK sends — cost one pass of utf8.Valid and a search for backslashes.

// jsonSpace is JSON's whitespace (RFC 8259); bytes.TrimSpace trims more.
const jsonSpace = " \t\r\n"

// plainText reports whether encoding/json decodes every string of body to exactly what was
// written: body is UTF-8 and has no escape of a surrogate. A false answer only means the
// strings must be looked at.
func plainText(body []byte) bool {
	if !utf8.Valid(body) {
		return false
	}
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			return true
		}
		i += j
		// A backslash and the byte after it are one escape: "\\ud800" escapes a backslash.
		if i+3 < len(body) && body[i+1] == 'u' && body[i+2]|0x20 == 'd' && isHighHexDigit(body[i+3]) {
			return false
		}
		i += 2
		if i >= len(body) {
			return true
		}
	}
}

// isHighHexDigit reports whether c is a hex digit 8–F, the second digit of every surrogate.
func isHighHexDigit(c byte) bool {
	return '8' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
}

// stringFault returns the fault of a JSON string as written (raw holds it with its quotes,
// as json.RawMessage does) when encoding/json would alter it: the first character SQS does
// not take, which is the surrogate or the byte, or one before it. A string encoding/json
// decodes exactly, or a value that is not a string, has no fault here: the engine judges
// its decoded text.
func stringFault(raw []byte) textFault {
	raw = bytes.Trim(raw, jsonSpace)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return textFault{}
	}
	s := raw[1 : len(raw)-1]
	var first textFault
	altered := false
	note := func(f textFault) {
		if !first.found() {
			first = f
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == 'u':
			r, ok := hexRune(s[i+2:])
			if !ok {
				return textFault{} // not JSON; encoding/json has refused it already
			}
			i += 6
			if 0xD800 <= r && r <= 0xDBFF && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if low, ok := hexRune(s[i+2:]); ok && 0xDC00 <= low && low <= 0xDFFF {
					i += 6 // a pair: a character above U+FFFF, which SQS takes
					continue
				}
			}
			if 0xD800 <= r && r <= 0xDFFF {
				altered = true
				note(textFault{r, charFault})
			} else if !allowedChar(r) {
				note(textFault{r, charFault})
			}
		case c == '\\':
			if i+1 < len(s) {
				switch s[i+1] {
				case 'b':
					note(textFault{'\b', charFault})
				case 'f':
					note(textFault{'\f', charFault})
				}
			}
			i += 2
		case c < utf8.RuneSelf:
			if !allowedChar(rune(c)) {
				note(textFault{rune(c), charFault})
			}
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				altered = true
				note(textFault{rune(c), byteFault})
			} else if !allowedChar(r) {
				note(textFault{r, charFault})
			}
			i += size
		}
	}
	if !altered {
		return textFault{}
	}
	return first
}

// hexRune reads the four hex digits of a \u escape at the start of s.
func hexRune(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c|0x20 && c|0x20 <= 'f':
			d = c | 0x20 - 'a' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// allowedChar reports whether SQS takes r in a message: #x9 | #xA | #xD | #x20–#xD7FF |
// #xE000–#xFFFD | #x10000–#x10FFFF (SPEC.md §5.8).
func allowedChar(r rune) bool {
	switch {
	case r < 0x20:
		return r == '\t' || r == '\n' || r == '\r'
	case r <= 0xD7FF:
		return true
	case r < 0xE000:
		return false
	case r <= 0xFFFD:
		return true
	}
	return 0x10000 <= r && r <= 0x10FFFF
}

// rawMessage is a message's strings as written: decoded from a SendMessage body, or as an
// entry of a SendMessageBatch body, by the same encoding/json rules as the input — member
// names matched case-insensitively, a later duplicate replacing an earlier one — it holds
// the very string each member of the decoded input got.
type rawMessage struct {
	MessageBody                                json.RawMessage
	MessageAttributes, MessageSystemAttributes map[string]rawAttribute
}

// rawAttribute is a message or system attribute's strings as written.
type rawAttribute struct{ DataType, StringValue json.RawMessage }

// faults returns the faults of m's strings, or nil when there are none.
func (m *rawMessage) faults() *msgText {
	t := msgText{body: stringFault(m.MessageBody), attrs: attributeFaults(m.MessageAttributes), sys: attributeFaults(m.MessageSystemAttributes)}
	if !t.body.found() && t.attrs == nil && t.sys == nil {
		return nil
	}
	return &t
}

func attributeFaults(attrs map[string]rawAttribute) map[string]attrFaults {
	var faults map[string]attrFaults
	for name, a := range attrs {
		f := attrFaults{dataType: stringFault(a.DataType), value: stringFault(a.StringValue)}
		if f.dataType.found() || f.value.found() {
			if faults == nil {
				faults = make(map[string]attrFaults)
			}
			faults[name] = f
		}
	}
	return faults
}

// messageText returns the faults of the messages of a SendMessage (batch false) or
// SendMessageBatch request body, or nil when there are none: the engine's note of text that
// is not Unicode (callnotes.go). Doors 1 and 2 note none: the SDK sends a Go string that is
// not UTF-8 with U+FFFD in place of each bad byte (sanitizeBody), which SQS takes.
func messageText(body []byte, batch bool) (*nonUnicode, error) {
	if plainText(body) {
		return nil, nil
	}
	var raw struct {
		rawMessage
		Entries []rawMessage
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, &inputError{err}
	}
	msgs := raw.Entries
	if !batch {
		msgs = []rawMessage{raw.rawMessage}
	}
	var text *nonUnicode
	for i := range msgs {
		if t := msgs[i].faults(); t != nil {
			if text == nil {
				text = &nonUnicode{entries: make([]*msgText, len(msgs))}
			}
			text.entries[i] = t
		}
	}
	return text, nil
}

// withTraceFault returns t with fault, if it is one, as the AWSTraceHeader value of message
// i of n, which took the request's X-Amzn-Trace-Id header as that attribute.
func withTraceFault(t *nonUnicode, i, n int, fault textFault) *nonUnicode {
	if !fault.found() {
		return t
	}
	if t == nil {
		t = &nonUnicode{entries: make([]*msgText, n)}
	}
	if t.entries[i] == nil {
		t.entries[i] = &msgText{}
	}
	if t.entries[i].sys == nil {
		t.entries[i].sys = make(map[string]attrFaults, 1)
	}
	t.entries[i].sys[awsTraceHeader] = attrFaults{value: fault}
	return t
}

// decodeQueueAttributes decodes the input of CreateQueue or SetQueueAttributes, and refuses
// a queue attribute whose value is not text (stringFault), which decoded would be stored with
// U+FFFD in it: InvalidAttributeValue "Invalid value for the parameter <Name>." as for any
// value SQS does not take (SPEC.md §4), for the first such attribute by name.
func decodeQueueAttributes[In any](ctx context.Context, body []byte, _ *http.Request, in *In) (context.Context, error) {
	if err := decodeInput(body, in); err != nil {
		return nil, err
	}
	if plainText(body) {
		return ctx, nil
	}
	var raw struct{ Attributes map[string]json.RawMessage }
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, &inputError{err}
	}
	for _, name := range sortedKeys(raw.Attributes) {
		if stringFault(raw.Attributes[name]).found() {
			return nil, errInvalidAttrValue(name).apiError()
		}
	}
	return ctx, nil
}
