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
		return v.isStr && wildcard(m.str, v.s)
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

// wildcard matches s against a pattern whose * stands for any run of characters.
func wildcard(p, s string) bool {
	star, mark := -1, 0
	i, j := 0, 0
	for j < len(s) {
		switch {
		case i < len(p) && p[i] == '*':
			star, mark = i, j
			i++
		case i < len(p) && p[i] == s[j]:
			i++
			j++
		case star >= 0:
			i = star + 1
			mark++
			j = mark
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
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
		if !ok {
			if !r.existence(false) {
				return false
			}
			continue
		}
		if r.existence(true) {
			continue
		}
		if !matchAttr(r, a) {
			return false
		}
	}
	for _, branches := range o.ors {
		any := false
		for i := range branches {
			if matchAttrObject(&branches[i], attrs) {
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
// body is not a JSON object, which matches nothing).
func (p *Pattern) MatchBody(b map[string]any) bool {
	return b != nil && matchBodyObject(&p.root, b)
}

func matchBodyObject(o *object, m map[string]any) bool {
	for i := range o.keys {
		r := &o.keys[i]
		found, matched := lookup(r, m, r.key)
		if !found {
			if !r.existence(false) {
				return false
			}
			continue
		}
		if !matched {
			return false
		}
	}
	for _, branches := range o.ors {
		any := false
		for i := range branches {
			if matchBodyObject(&branches[i], m) {
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

// lookup finds key in m — as a key, or dotted through nested objects ("a.b" is m["a"]["b"]
// too) — and reports whether it was found and whether one of its values matches r.
func lookup(r *keyRule, m map[string]any, key string) (found, matched bool) {
	if v, ok := m[key]; ok {
		found = true
		if matchBodyValue(r, v) {
			return true, true
		}
	}
	for i := 0; i < len(key); i++ {
		if key[i] != '.' {
			continue
		}
		if sub, ok := m[key[:i]].(map[string]any); ok {
			f, mt := lookup(r, sub, key[i+1:])
			found = found || f
			if mt {
				return true, true
			}
		}
	}
	return found, false
}

func matchBodyValue(r *keyRule, v any) bool {
	if arr, ok := v.([]any); ok {
		for _, e := range arr {
			if matchBodyValue(r, e) {
				return true
			}
		}
		return false
	}
	if r.child != nil {
		obj, ok := v.(map[string]any)
		return ok && matchBodyObject(r.child, obj)
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
	case bool:
		c.isBool, c.b = true, x
	case nil:
		c.isNull = true
	default:
		return false
	}
	return r.matchValue(&c)
}
