package eventpattern

import (
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// SNS reads a filter policy (and a RedrivePolicy) with Jackson, and its refusals say so: a
// policy that is not JSON is refused with Jackson's own text, and most refusals end in the
// location Jackson's parser stood at, "\n at [Source: REDACTED (…); line: L, column: C]"
// (SPEC-sns.md §8.4; AWS recorded the source quoted before 2025 and REDACTED since, the
// default of Jackson 2.16 on, which the fake writes). This file is a JSON reader that fails
// as Jackson's ReaderBasedJsonParser does, with its messages and locations, and keeps, for
// each value, where that parser stands once it has read the value's first token — after a
// string's opening quote (Jackson reads a string's text only when asked), after a bracket,
// after a number or a literal — and once it has read the value whole, which is where the
// filter-policy compiler's refusals point. Columns count Java chars (UTF-16 units) from 1;
// lines count from 1, a "\r\n" one line break.

// jkind is a JSON value's kind.
type jkind uint8

const (
	jObject jkind = iota + 1
	jArray
	jString
	jNumber
	jTrue
	jFalse
	jNull
)

// jnode is one JSON value: an object's keys and values in document order (a key given twice
// keeps its last value, in its last place), an array's elements, a string's text, a
// number's text. at and end are byte offsets of where Jackson's parser stands once it has
// read the value's first token, and the whole value.
type jnode struct {
	kind    jkind
	text    string
	keys    []string
	vals    []*jnode
	at, end int
	index   map[string]int // an object's keys' places
	holes   bool
}

// put adds a key's value; a key given again moves to its last place with its last value
// (its earlier place is emptied, and compact drops it).
func (n *jnode) put(key string, v *jnode) {
	if n.index == nil {
		n.index = make(map[string]int)
	}
	if k, seen := n.index[key]; seen {
		n.vals[k], n.holes = nil, true
	}
	n.index[key] = len(n.keys)
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

// compact drops the places put emptied.
func (n *jnode) compact() {
	if !n.holes {
		return
	}
	k := 0
	for i, v := range n.vals {
		if v != nil {
			n.keys[k], n.vals[k] = n.keys[i], v
			k++
		}
	}
	n.keys, n.vals, n.holes = n.keys[:k], n.vals[:k], false
}

// jsonError is Jackson's refusal of a text: its message and where it stands.
type jsonError struct {
	msg string
	off int // byte offset, for location
}

// maxJSONDepth is Jackson's default StreamReadConstraints nesting limit.
const maxJSONDepth = 1000

// jsonValueList is what Jackson says a value may be.
const jsonValueList = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"

// locationSuffix is Jackson's location line for a byte offset of text.
func locationSuffix(text string, off int) string {
	line, col := jacksonPosition(text, off)
	return "\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: " +
		strconv.Itoa(line) + ", column: " + strconv.Itoa(col) + "]"
}

// jacksonPosition is the line and column, from 1, of a byte offset, as Jackson counts them.
func jacksonPosition(text string, off int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < off && i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line, col = line+1, 1
			i++
		case c == '\r':
			line, col = line+1, 1
			i++
			if i < len(text) && text[i] == '\n' && i < off {
				i++
			}
		case c < utf8.RuneSelf:
			col++
			i++
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			col += utf16.RuneLen(r)
			if utf16.RuneLen(r) < 0 {
				col++ // an invalid byte: one char
			}
			i += size
		}
	}
	return line, col
}

// parseJackson reads text as one JSON value, as Jackson does, and refuses content after it.
func parseJackson(text string) (*jnode, *jsonError) {
	p := &jparser{s: text}
	p.ws()
	if p.i == len(p.s) {
		return nil, &jsonError{msg: "No content to map due to end-of-input", off: p.i}
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i < len(p.s) {
		// Jackson's readers stop after the first value; SNS's is not known to (UNVERIFIED):
		// the fake refuses what follows as Jackson would as a value of its own.
		if _, err := p.value(0); err != nil {
			return nil, err
		}
		return nil, &jsonError{msg: unexpected(rune(text[v.end]), "expected a valid value "+jsonValueList), off: v.end}
	}
	return v, nil
}

type jparser struct {
	s string
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// unexpected is Jackson's text for an unexpected character.
func unexpected(c rune, what string) string {
	return "Unexpected character (" + quoteChar(c) + " (code " + strconv.Itoa(int(c)) + ")): " + what
}

func quoteChar(c rune) string {
	if c < 0x20 {
		return "CTRL-CHAR, code " + strconv.Itoa(int(c))
	}
	return "'" + string(c) + "'"
}

func (p *jparser) eof(what string) *jsonError {
	return &jsonError{msg: "Unexpected end-of-input" + what, off: p.i}
}

func (p *jparser) char() rune {
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return r
}

func (p *jparser) value(depth int) (*jnode, *jsonError) {
	if p.i >= len(p.s) {
		return nil, p.eof(": expected a value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		start := p.i
		text, err := p.str(": was expecting closing quote for a string value")
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, text: text, at: start + 1, end: p.i}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't', c == 'f', c == 'n':
		return p.literal()
	default:
		r := p.char()
		if unicode.IsLetter(r) || r == '$' || r == '_' {
			return nil, p.invalidToken(p.i)
		}
		return nil, &jsonError{msg: unexpected(r, "expected a valid value "+jsonValueList), off: p.i}
	}
}

// invalidToken is Jackson's refusal of an unquoted word: the word as far as it goes (at most
// 256 characters), the location after it.
func (p *jparser) invalidToken(start int) *jsonError {
	i, n := start, 0
	for i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '$' || r == '_') {
			break
		}
		i += size
		if n++; n >= 256 {
			break
		}
	}
	word := p.s[start:i]
	if n >= 256 {
		word += "..."
	}
	return &jsonError{msg: "Unrecognized token '" + word + "': was expecting " + jsonValueList, off: i}
}

func (p *jparser) literal() (*jnode, *jsonError) {
	for _, l := range [...]struct {
		word string
		kind jkind
	}{{"true", jTrue}, {"false", jFalse}, {"null", jNull}} {
		if len(p.s)-p.i >= len(l.word) && p.s[p.i:p.i+len(l.word)] == l.word {
			end := p.i + len(l.word)
			if end < len(p.s) {
				if r, _ := utf8.DecodeRuneInString(p.s[end:]); unicode.IsLetter(r) || unicode.IsDigit(r) || r == '$' || r == '_' {
					return nil, p.invalidToken(p.i)
				}
			}
			p.i = end
			return &jnode{kind: l.kind, text: l.word, at: end, end: end}, nil
		}
	}
	return nil, p.invalidToken(p.i)
}

func (p *jparser) number() (*jnode, *jsonError) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
		if p.i >= len(p.s) {
			return nil, p.eof(" in a Number value")
		}
		if c := p.s[p.i]; c < '0' || c > '9' {
			return nil, &jsonError{msg: "Invalid numeric value: expected digit (0-9) to follow minus sign, for valid numeric value", off: p.i}
		}
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	digits()
	if p.s[intStart] == '0' && p.i-intStart > 1 {
		return nil, &jsonError{msg: "Invalid numeric value: Leading zeroes not allowed", off: intStart + 1}
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			if p.i >= len(p.s) {
				return nil, p.eof(" in a Number value")
			}
			return nil, &jsonError{msg: "Unexpected character (" + quoteChar(p.char()) + " (code " + strconv.Itoa(int(p.char())) +
				")) in numeric value: Decimal point not followed by a digit", off: p.i}
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			if p.i >= len(p.s) {
				return nil, p.eof(" in a Number value")
			}
			return nil, &jsonError{msg: "Unexpected character (" + quoteChar(p.char()) + " (code " + strconv.Itoa(int(p.char())) +
				")) in numeric value: Exponent indicator not followed by a digit", off: p.i}
		}
	}
	return &jnode{kind: jNumber, text: p.s[start:p.i], at: p.i, end: p.i}, nil
}

// str reads a string from its opening quote, to after its closing one.
func (p *jparser) str(eofWhat string) (string, *jsonError) {
	p.i++ // the opening quote
	start := p.i
	var b []byte // only when the string has escapes
	for {
		if p.i >= len(p.s) {
			return "", p.eof(eofWhat)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			if b == nil {
				return p.s[start : p.i-1], nil
			}
			return string(b), nil
		case c < 0x20:
			p.i++
			return "", &jsonError{msg: "Illegal unquoted character ((CTRL-CHAR, code " + strconv.Itoa(int(c)) +
				")): has to be escaped using backslash to be included in string value", off: p.i}
		case c == '\\':
			if b == nil {
				b = append([]byte(nil), p.s[start:p.i]...)
			}
			p.i++
			if p.i >= len(p.s) {
				return "", p.eof(eofWhat)
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := rune(0)
				for range 4 {
					if p.i >= len(p.s) {
						return "", p.eof(eofWhat)
					}
					h := p.s[p.i]
					var v byte
					switch {
					case h >= '0' && h <= '9':
						v = h - '0'
					case h >= 'a' && h <= 'f':
						v = h - 'a' + 10
					case h >= 'A' && h <= 'F':
						v = h - 'A' + 10
					default:
						return "", &jsonError{msg: unexpected(p.char(), "expected a hex-digit for character escape sequence"), off: p.i}
					}
					r = r<<4 | rune(v)
					p.i++
				}
				b = utf8.AppendRune(b, r)
			default:
				p.i -= 1
				r := p.char()
				p.i += utf8.RuneLen(r)
				return "", &jsonError{msg: "Unrecognized character escape " + quoteChar(r) + " (code " + strconv.Itoa(int(r)) + ")", off: p.i}
			}
		default:
			if b != nil {
				b = append(b, c)
			}
			p.i++
		}
	}
}

func (p *jparser) nested(depth int, open int) *jsonError {
	if depth+1 > maxJSONDepth {
		return &jsonError{msg: "Document nesting depth (" + strconv.Itoa(depth+1) + ") exceeds the maximum allowed (" +
			strconv.Itoa(maxJSONDepth) + ", from `StreamReadConstraints.getMaxNestingDepth()`)", off: open + 1}
	}
	return nil
}

// closeMarker is Jackson's refusal of a container its text ends inside.
func (p *jparser) closeMarker(kind string, open int) *jsonError {
	line, col := jacksonPosition(p.s, open)
	return p.eof(": expected close marker for " + kind + " (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: " +
		strconv.Itoa(line) + ", column: " + strconv.Itoa(col) + "])")
}

func (p *jparser) array(depth int) (*jnode, *jsonError) {
	open := p.i
	if err := p.nested(depth, open); err != nil {
		return nil, err
	}
	p.i++
	n := &jnode{kind: jArray, at: p.i}
	p.ws()
	if p.i >= len(p.s) {
		return nil, p.closeMarker("Array", open)
	}
	if p.s[p.i] == ']' {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			if err.msg == "Unexpected end-of-input: expected a value" {
				return nil, p.closeMarker("Array", open)
			}
			return nil, err
		}
		n.vals = append(n.vals, v)
		p.ws()
		if p.i >= len(p.s) {
			return nil, p.closeMarker("Array", open)
		}
		switch p.s[p.i] {
		case ']':
			p.i++
			n.end = p.i
			return n, nil
		case ',':
			p.i++
			p.ws()
		default:
			return nil, &jsonError{msg: unexpected(p.char(), "was expecting comma to separate Array entries"), off: p.i}
		}
	}
}

func (p *jparser) object(depth int) (*jnode, *jsonError) {
	open := p.i
	if err := p.nested(depth, open); err != nil {
		return nil, err
	}
	p.i++
	n := &jnode{kind: jObject, at: p.i}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		if p.i >= len(p.s) {
			return nil, p.closeMarker("Object", open)
		}
		if p.s[p.i] != '"' {
			return nil, &jsonError{msg: unexpected(p.char(), "was expecting double-quote to start field name"), off: p.i}
		}
		key, err := p.str(" in field name")
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.s) {
			return nil, p.closeMarker("Object", open)
		}
		if p.s[p.i] != ':' {
			return nil, &jsonError{msg: unexpected(p.char(), "was expecting a colon to separate field name and value"), off: p.i}
		}
		p.i++
		p.ws()
		if p.i >= len(p.s) {
			return nil, p.closeMarker("Object", open)
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.put(key, v)
		p.ws()
		if p.i >= len(p.s) {
			return nil, p.closeMarker("Object", open)
		}
		switch p.s[p.i] {
		case '}':
			p.i++
			n.end = p.i
			n.compact()
			n.index = nil
			return n, nil
		case ',':
			p.i++
			p.ws()
		default:
			return nil, &jsonError{msg: unexpected(p.char(), "was expecting comma to separate Object entries"), off: p.i}
		}
	}
}
