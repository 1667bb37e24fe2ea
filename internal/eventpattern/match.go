package eventpattern

import (
	"encoding/json"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// Attr is one message attribute as a filter policy sees it: its DataType and its
// StringValue (Binary values are never matched).
type Attr struct {
	Type, Value string
}

// Body reports whether the policy has MessageBody scope.
func (p *Pattern) Body() bool { return p.body }

// Keys returns the pattern's top-level keys, sorted ($or's branches not included).
func (p *Pattern) Keys() []string {
	keys := make([]string, len(p.root.keys))
	for i := range p.root.keys {
		keys[i] = p.root.keys[i].key
	}
	return keys
}

// Nested reports whether the pattern's top-level key is an object pattern (rather than a
// list of matchers).
func (p *Pattern) Nested(key string) bool {
	for i := range p.root.keys {
		if p.root.keys[i].key == key {
			return p.root.keys[i].child != nil
		}
	}
	return false
}

// value is one candidate value.
type value struct {
	isStr, isNum, isNull, isBool bool
	s                            string
	n                            float64
	b                            bool
}

func (m *matcher) match(v *value) bool {
	switch m.k {
	case kExactString:
		return v.isStr && v.s == m.str
	case kExactNumber:
		return v.isNum && v.n == m.num
	case kExactNull:
		return v.isNull
	case kExactBool:
		return v.isBool && v.b == m.b
	case kPrefix:
		return v.isStr && strings.HasPrefix(v.s, m.str)
	case kSuffix:
		return v.isStr && strings.HasSuffix(v.s, m.str)
	case kIgnoreCase:
		return v.isStr && strings.EqualFold(v.s, m.str)
	case kWildcard:
		return v.isStr && m.wild.match(v.s, nil)
	case kNumeric:
		if !v.isNum {
			return false
		}
		return (v.n > m.lo || m.loInc && v.n == m.lo) && (v.n < m.hi || m.hiInc && v.n == m.hi)
	case kCIDR:
		if !v.isStr {
			return false
		}
		ip, err := netip.ParseAddr(v.s)
		return err == nil && m.prefix.Contains(ip)
	case kAnythingBut:
		switch {
		case v.isStr:
			for _, s := range m.strs {
				if s == v.s {
					return false
				}
			}
		case v.isNum:
			for _, n := range m.nums {
				if n == v.n {
					return false
				}
			}
		}
		return true
	case kAnythingButPrefix:
		return v.isStr && !strings.HasPrefix(v.s, m.str)
	}
	return false
}

// wildPattern is a compiled wildcard pattern, whose * stands for any run of characters: the
// literal runs between its stars, each with its KMP failure table, so that a match costs
// time linear in the pattern and the value (issue 29, attack 6). The value must begin with
// the first run and end with the last; the runs between are found in order, each at its
// leftmost place after the one before, which is where a match puts them if any does.
type wildPattern struct {
	star  bool     // the pattern has a star: else it matches itself only
	first string   // the run before the first star
	last  string   // the run after the last star
	mids  []string // the non-empty runs between
	fails [][]int32
}

func compileWildcard(p string) *wildPattern {
	runs := strings.Split(p, "*")
	w := &wildPattern{first: runs[0], star: len(runs) > 1}
	if !w.star {
		return w
	}
	w.last = runs[len(runs)-1]
	for _, r := range runs[1 : len(runs)-1] {
		if r != "" {
			w.mids = append(w.mids, r)
			w.fails = append(w.fails, failureTable(r))
		}
	}
	return w
}

// failureTable is KMP's: f[i] is the length of the longest proper border of r[:i+1].
func failureTable(r string) []int32 {
	f := make([]int32, len(r))
	k := int32(0)
	for i := 1; i < len(r); i++ {
		for k > 0 && r[i] != r[k] {
			k = f[k-1]
		}
		if r[i] == r[k] {
			k++
		}
		f[i] = k
	}
	return f
}

// match reports whether s matches the pattern; steps, when not nil, counts the byte
// comparisons (for the test of its cost).
func (w *wildPattern) match(s string, steps *int) bool {
	if !w.star {
		return s == w.first
	}
	if len(s) < len(w.first)+len(w.last) || !strings.HasPrefix(s, w.first) || !strings.HasSuffix(s, w.last) {
		return false
	}
	if steps != nil {
		*steps += len(w.first) + len(w.last)
	}
	region := s[len(w.first) : len(s)-len(w.last)]
	at := 0
	for i, r := range w.mids {
		end := kmpEnd(region, at, r, w.fails[i], steps)
		if end < 0 {
			return false
		}
		at = end
	}
	return true
}

// kmpEnd finds the leftmost r in s at or after from, and returns where it ends (-1: none),
// comparing at most 2 × (len(s) - from) bytes.
func kmpEnd(s string, from int, r string, f []int32, steps *int) int {
	k := int32(0)
	for j := from; j < len(s); j++ {
		for k > 0 && s[j] != r[k] {
			k = f[k-1]
			if steps != nil {
				*steps++
			}
		}
		if steps != nil {
			*steps++
		}
		if s[j] == r[k] {
			k++
			if int(k) == len(r) {
				return j + 1
			}
		}
	}
	return -1
}

// existence reports what the rule's exists matchers say: want true/false, and whether it
// has one.
func (r *keyRule) existence(present bool) bool {
	for i := range r.matchers {
		if r.matchers[i].k == kExists && r.matchers[i].b == present {
			return true
		}
	}
	return false
}

func (r *keyRule) matchValue(v *value) bool {
	for i := range r.matchers {
		if r.matchers[i].k != kExists && r.matchers[i].match(v) {
			return true
		}
	}
	return false
}

// MatchAttributes matches a MessageAttributes-scope policy against a message's attributes.
func (p *Pattern) MatchAttributes(attrs map[string]Attr) bool {
	return matchAttrObject(&p.root, attrs)
}

func matchAttrObject(o *object, attrs map[string]Attr) bool {
	for i := range o.keys {
		r := &o.keys[i]
		a, ok := attrs[r.key]
		if !r.holds(ok, ok && (r.existence(true) || matchAttr(r, a))) {
			return false
		}
	}
	return o.orsHold(func(b *object) bool { return matchAttrObject(b, attrs) })
}

// holds reports whether a key rule holds given what a lookup of its key found: a value
// (matched: one that matches), or nothing, which only {"exists": false} accepts.
func (r *keyRule) holds(found, matched bool) bool {
	if !found {
		return r.existence(false)
	}
	return matched
}

// orsHold reports whether each $or of the object has a branch that holds.
func (o *object) orsHold(branch func(*object) bool) bool {
	for _, branches := range o.ors {
		any := false
		for i := range branches {
			if branch(&branches[i]) {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	return true
}

func matchAttr(r *keyRule, a Attr) bool {
	base, _, _ := strings.Cut(a.Type, ".")
	switch {
	case a.Type == "String.Array":
		return matchArrayText(r, a.Value)
	case base == "String":
		return r.matchValue(&value{isStr: true, s: a.Value})
	case base == "Number":
		n, err := strconv.ParseFloat(a.Value, 64)
		return err == nil && r.matchValue(&value{isNum: true, n: n})
	}
	return false
}

// matchArrayText matches the elements of a String.Array attribute (a JSON array of
// strings, numbers, booleans and nulls) one by one, decoding it without allocating unless
// a string has escapes.
func matchArrayText(r *keyRule, text string) bool {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '[' || t[len(t)-1] != ']' {
		return false
	}
	t = t[1 : len(t)-1]
	for {
		t = strings.TrimLeft(t, " \t\r\n")
		if t == "" {
			return false
		}
		var v value
		var n int
		if t[0] == '"' {
			end := 1
			escaped := false
			for end < len(t) && t[end] != '"' {
				if t[end] == '\\' {
					escaped = true
					end++
				}
				end++
			}
			if end >= len(t) {
				return false
			}
			v.isStr, v.s = true, t[1:end]
			if escaped {
				var s string
				if json.Unmarshal([]byte(t[:end+1]), &s) != nil {
					return false
				}
				v.s = s
			}
			n = end + 1
		} else {
			n = strings.IndexByte(t, ',')
			if n < 0 {
				n = len(t)
			}
			tok := strings.TrimSpace(t[:n])
			switch tok {
			case "null":
				v.isNull = true
			case "true", "false":
				v.isBool, v.b = true, tok == "true"
			default:
				f, err := strconv.ParseFloat(tok, 64)
				if err != nil {
					return false
				}
				v.isNum, v.n = true, f
			}
		}
		if r.matchValue(&v) {
			return true
		}
		t = strings.TrimLeft(t[n:], " \t\r\n")
		if t == "" {
			return false
		}
		if t[0] != ',' {
			return false
		}
		t = t[1:]
	}
}

// ParseBody parses a message body for MessageBody-scope policies, once per publish; ok is
// false when it is not a JSON object (such a body matches no MessageBody policy).
func ParseBody(body string) (b map[string]any, ok bool) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&b) != nil || dec.More() || b == nil {
		return nil, false
	}
	return b, true
}

// MatchBody matches a MessageBody-scope policy against a body ParseBody parsed (nil: the
// body is not a JSON object, which matches nothing); numbers may also be float64s, as
// json.Unmarshal decodes them.
func (p *Pattern) MatchBody(b map[string]any) bool {
	return b != nil && matchBodyObject(&p.root, b, p.flat)
}

func matchBodyObject(o *object, m map[string]any, flat bool) bool {
	for i := range o.keys {
		r := &o.keys[i]
		if !r.holds(lookup(r, m, r.key, flat)) {
			return false
		}
	}
	return o.orsHold(func(b *object) bool { return matchBodyObject(b, m, flat) })
}

// lookup finds key in m — as a key, or dotted through nested objects ("a.b" is m["a"]["b"]
// too) — and reports whether it was found and whether one of its values matches r. A
// list of matchers finds leaves only: a key holding an object is not there for it
// ("exists" works on leaf nodes, SNS's guide says).
func lookup(r *keyRule, m map[string]any, key string, flat bool) (found, matched bool) {
	if v, ok := m[key]; ok {
		if _, obj := v.(map[string]any); !obj || r.child != nil {
			found = true
		}
		if matchBodyValue(r, v, flat) {
			return true, true
		}
	}
	for i := 0; i < len(key); i++ {
		if key[i] != '.' {
			continue
		}
		if sub, ok := m[key[:i]].(map[string]any); ok {
			f, mt := lookup(r, sub, key[i+1:], flat)
			found = found || f
			if mt {
				return true, true
			}
		}
	}
	return found, false
}

func matchBodyValue(r *keyRule, v any, flat bool) bool {
	if arr, ok := v.([]any); ok {
		if flat && r.child != nil {
			return matchFlattened(r.child, arr)
		}
		for _, e := range arr {
			if matchBodyValue(r, e, flat) {
				return true
			}
		}
		return false
	}
	if r.child != nil {
		obj, ok := v.(map[string]any)
		return ok && matchBodyObject(r.child, obj, flat)
	}
	if _, obj := v.(map[string]any); obj {
		return false // matchers match leaves
	}
	if r.existence(true) {
		return true
	}
	var c value
	switch x := v.(type) {
	case string:
		c.isStr, c.s = true, x
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) {
			return false
		}
		c.isNum, c.n = true, f
	case float64: // a body decoded without UseNumber
		c.isNum, c.n = true, x
	case bool:
		c.isBool, c.b = true, x
	case nil:
		c.isNull = true
	default:
		return false
	}
	return r.matchValue(&c)
}

// matchFlattened matches an object pattern against an array as Options.FlattenArrays says:
// each key of the pattern against the values that key has in any element that is an object
// (an array value contributing its elements), so two keys may match in different elements.
func matchFlattened(o *object, list []any) bool {
	for i := range o.keys {
		r := &o.keys[i]
		found, matched := false, false
		if r.child == nil {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					f, mt := lookup(r, m, r.key, true)
					found = found || f
					if mt {
						matched = true
						break
					}
				}
			}
		} else {
			// An object pattern nested under the array: its values gathered from every
			// element, matched as one value or flattened again (this allocates; SNS's
			// dialect never comes here).
			var values []any
			for _, e := range list {
				m, ok := e.(map[string]any)
				if !ok {
					continue
				}
				v, ok := m[r.key]
				if !ok {
					continue
				}
				found = true
				if inner, ok := v.([]any); ok {
					values = append(values, inner...)
				} else {
					values = append(values, v)
				}
			}
			if len(values) == 1 {
				matched = matchBodyValue(r, values[0], true)
			} else {
				matched = matchFlattened(r.child, values)
			}
		}
		if !r.holds(found, matched) {
			return false
		}
	}
	return o.orsHold(func(b *object) bool { return matchFlattened(b, list) })
}
