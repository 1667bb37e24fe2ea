// Package eventpattern compiles and matches EventBridge's pattern language in the two dialects
// the fakes speak: Amazon SNS subscription filter policies (CompileFilterPolicy) and Lambda's
// event filters for SQS event source mappings (package lambdasqs, through Compile and its
// Options). One compiler and one evaluator serve both; Options carries where the dialects
// differ. Patterns are compiled once and matched without allocating against message
// attributes, or against a message body parsed once per publish. SNS's refusals carry SNS's
// texts (SPEC-sns.md §8.4), and where SNS's end in the location its JSON parser stood at,
// so do they (jackson.go): a policy is read in its text's order, its first fault refused.
package eventpattern

import (
	"errors"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Limits of a filter policy (SPEC-sns.md §8.3).
const (
	MaxKeys         = 5
	MaxCombinations = 150
	MaxPolicyBytes  = 256 * 1024
)

// Pattern is a compiled filter policy or event pattern.
type Pattern struct {
	root object
	body bool // MessageBody scope
	flat bool // Options.FlattenArrays
}

// Options are the differences between the dialects one compiler reads: SNS's filter policies
// (CompileFilterPolicy's options) and Lambda's event filters (lambdasqs's).
type Options struct {
	// Body lets a pattern nest objects (SNS's MessageBody scope; Lambda's patterns on the
	// record); without it a nested object is SNS's MessageAttributes-scope refusal.
	Body bool
	// Limits applies SNS's limits (SPEC-sns.md §8.3): MaxPolicyBytes, MaxKeys top-level
	// keys, MaxCombinations.
	Limits bool
	// NoEmptyObjects refuses an empty object anywhere, the pattern itself included.
	NoEmptyObjects bool
	// Unsupported is the features this dialect refuses with an *UnsupportedError instead
	// of evaluating them (or, for ObjectOperand, of refusing them as invalid).
	Unsupported Feature
	// FlattenArrays matches an object pattern against an array of objects as one object
	// whose fields hold the values they have in any of the elements, so two fields may match
	// in different elements (Lambda's dialect as lambdasqs models it). Without it one element
	// must match the whole object pattern (SNS: event-ruler's array consistency).
	FlattenArrays bool
}

// Feature is a part of the pattern language a dialect may leave out (Options.Unsupported).
type Feature uint8

// The features of Options.Unsupported.
const (
	Or                  Feature = 1 << iota // {"$or": [pattern, …]}, and any key named $or
	Wildcard                                // {"wildcard": "…*…"}
	CIDR                                    // {"cidr": "10.0.0.0/24"}
	AnythingButOperator                     // {"anything-but": {"prefix": "…"}}
	ObjectOperand                           // {"prefix": {"equals-ignore-case": "…"}} and the like
)

// UnsupportedError is the refusal of a pattern that uses a feature its dialect leaves out.
type UnsupportedError struct {
	// What names the feature as a pattern writes it: "$or", "wildcard", …
	What string
}

func (e *UnsupportedError) Error() string { return e.What + " is not supported" }

func (o *Options) refuses(f Feature) bool { return o.Unsupported&f != 0 }

// object is a policy object: every key must match, and one branch of each $or.
type object struct {
	keys []keyRule
	ors  [][]object
}

type keyRule struct {
	key      string
	matchers []matcher // a leaf: any matches
	child    *object   // a nested object (body scope)
}

type kind uint8

const (
	kExactString kind = iota
	kExactNumber
	kExactNull
	kExactBool
	kPrefix
	kSuffix
	kIgnoreCase
	kWildcard
	kNumeric
	kExists
	kCIDR
	kAnythingBut       // strs and nums: outside the set
	kAnythingButPrefix // str
)

type matcher struct {
	k      kind
	str    string
	num    float64
	b      bool
	strs   []string
	nums   []float64
	lo, hi float64 // numeric: bounds
	loInc  bool
	hiInc  bool
	prefix netip.Prefix
	wild   *wildPattern // wildcard: compiled
}

// errNestedAttributes is SNS's text, which starts with a capital.
var errNestedAttributes = policyError("Filter policy scope MessageAttributes does not support nested filter policy")

// policyError is a refusal whose text is SNS's verbatim.
type policyError string

func (e policyError) Error() string { return string(e) }

func fail(msg string) error { return errors.New("FilterPolicy: " + msg) }

// CompileFilterPolicy compiles a FilterPolicy for the scope (body: MessageBody, else
// MessageAttributes). Its error's text is what follows SNS's "Invalid parameter: " prefix.
func CompileFilterPolicy(text string, body bool) (*Pattern, error) {
	return Compile(text, Options{Body: body, Limits: true})
}

// Compile compiles a pattern in the dialect the options describe. A refusal is an
// *UnsupportedError for a feature the dialect leaves out, else an error whose text is SNS's
// (after its "Invalid parameter: " prefix).
func Compile(text string, opts Options) (*Pattern, error) {
	if opts.Limits && len(text) > MaxPolicyBytes {
		return nil, fail("Filter policy is too large")
	}
	root, jerr := parseJackson(text)
	if jerr != nil {
		return nil, fail("failed to parse JSON. " + jerr.msg + locationSuffix(text, jerr.off))
	}
	c := compiler{text: text, opts: &opts}
	if root.kind != jObject {
		// Event-ruler's refusal of a policy that is no object (its text is UNVERIFIED; the
		// location is where the parser stands, after the value's first token).
		return nil, c.failAt("Filter is not an object", root.at)
	}
	if opts.Limits && len(root.keys) > MaxKeys {
		return nil, fail("Filter policy can not have more than 5 keys")
	}
	p := &Pattern{body: opts.Body, flat: opts.FlattenArrays}
	var err error
	if p.root, err = c.object(root); err != nil {
		return nil, err
	}
	if c.nested && !opts.Body {
		return nil, errNestedAttributes
	}
	if opts.Limits && combinations(&p.root, 1) > MaxCombinations {
		return nil, fail("Filter policy is too complex")
	}
	return p, nil
}

// JSONError is SNS's text for a JSON document it cannot read (a RedrivePolicy, a filter
// policy): Jackson's message and the location line it ends in, or "" when text is JSON.
func JSONError(text string) string {
	if _, err := parseJackson(text); err != nil {
		return err.msg + locationSuffix(text, err.off)
	}
	return ""
}

// compiler compiles one policy, document order first as SNS's reader meets it: the refusal
// is of the first fault in the text, and ends in the location where SNS's parser stood when
// it found it (SPEC-sns.md §8.4, the recorded locations: after a value's first token for a
// wrong value, after an array's closing bracket for one too short).
type compiler struct {
	text   string
	opts   *Options
	nested bool // the policy nests an object
}

// failAt is a refusal that ends in the location of byte offset off.
func (c *compiler) failAt(msg string, off int) error {
	return fail(msg + locationSuffix(c.text, off))
}

func (c *compiler) object(n *jnode) (object, error) {
	var o object
	opts := c.opts
	if opts.NoEmptyObjects && len(n.keys) == 0 {
		return o, c.failAt("Empty objects are not allowed", n.end)
	}
	for i, k := range n.keys {
		v := n.vals[i]
		if k == "$or" && opts.refuses(Or) {
			return o, &UnsupportedError{What: "$or"}
		}
		if k == "$or" && v.kind == jArray && len(v.vals) >= 2 && allObjects(v.vals) {
			var branches []object
			for _, b := range v.vals {
				bo, err := c.object(b)
				if err != nil {
					return o, err
				}
				branches = append(branches, bo)
			}
			o.ors = append(o.ors, branches)
			continue
		}
		switch v.kind {
		case jArray:
			if len(v.vals) == 0 {
				return o, c.failAt("Empty arrays are not allowed", v.end)
			}
			r := keyRule{key: k}
			for _, e := range v.vals {
				mt, err := c.matcher(e)
				if err != nil {
					return o, err
				}
				r.matchers = append(r.matchers, mt)
			}
			o.keys = append(o.keys, r)
		case jObject:
			c.nested = true // refused after the whole policy is read (test_validate_policy_string_operators)
			child, err := c.object(v)
			if err != nil {
				return o, err
			}
			o.keys = append(o.keys, keyRule{key: k, child: &child})
		default:
			return o, c.failAt(strconv.Quote(k)+" must be an object or an array", v.at)
		}
	}
	// Matched in key order, whatever the text's.
	slices.SortStableFunc(o.keys, func(a, b keyRule) int { return strings.Compare(a.key, b.key) })
	return o, nil
}

func allObjects(list []*jnode) bool {
	for _, e := range list {
		if e.kind != jObject {
			return false
		}
	}
	return true
}

func toFloat(text string) (float64, bool) {
	f, err := strconv.ParseFloat(text, 64)
	return f, err == nil && !math.IsInf(f, 0)
}

func (c *compiler) matcher(e *jnode) (matcher, error) {
	switch e.kind {
	case jString:
		return matcher{k: kExactString, str: e.text}, nil
	case jNumber:
		f, ok := toFloat(e.text)
		if !ok {
			return matcher{}, c.failAt("Match value must be String, number, true, false, or null", e.at)
		}
		return matcher{k: kExactNumber, num: f}, nil
	case jNull:
		return matcher{k: kExactNull}, nil
	case jTrue, jFalse:
		return matcher{k: kExactBool, b: e.kind == jTrue}, nil
	case jObject:
		switch len(e.keys) {
		case 0:
			return matcher{}, c.failAt("Empty objects are not allowed", e.end)
		case 1:
			return c.operator(e.keys[0], e.vals[0])
		}
		return matcher{}, c.failAt("Only one key allowed in match expression", e.vals[1].at)
	}
	return matcher{}, c.failAt("Match value must be String, number, true, false, or null", e.at)
}

func (c *compiler) operator(op string, v *jnode) (matcher, error) {
	opts := c.opts
	switch {
	case op == "wildcard" && opts.refuses(Wildcard), op == "cidr" && opts.refuses(CIDR):
		return matcher{}, &UnsupportedError{What: op}
	}
	switch op {
	case "prefix", "suffix", "equals-ignore-case", "wildcard":
		if v.kind != jString {
			if v.kind == jObject && opts.refuses(ObjectOperand) {
				return matcher{}, &UnsupportedError{What: op + " with an object operand"}
			}
			return matcher{}, c.failAt(op+" match pattern must be a string", v.at)
		}
		k := map[string]kind{"prefix": kPrefix, "suffix": kSuffix, "equals-ignore-case": kIgnoreCase, "wildcard": kWildcard}[op]
		m := matcher{k: k, str: v.text}
		if k == kWildcard {
			m.wild = compileWildcard(v.text)
		}
		return m, nil
	case "exists":
		if v.kind != jTrue && v.kind != jFalse {
			return matcher{}, c.failAt("exists match pattern must be either true or false.", v.at)
		}
		return matcher{k: kExists, b: v.kind == jTrue}, nil
	case "cidr":
		if v.kind != jString {
			return matcher{}, c.failAt("prefix match pattern must be a string", v.at)
		}
		return compileCIDR(v.text)
	case "numeric":
		return c.numeric(v)
	case "anything-but":
		return c.anythingBut(v)
	}
	return matcher{}, c.failAt("Unrecognized match type "+op, v.at)
}

func compileCIDR(s string) (matcher, error) {
	addr, bits, ok := strings.Cut(s, "/")
	if !ok || strings.Contains(bits, "/") {
		return matcher{}, fail("Malformed CIDR, one '/' required")
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return matcher{}, fail("Nonstandard IP address: " + addr)
	}
	n, err := strconv.Atoi(bits)
	if err != nil {
		return matcher{}, fail("Malformed CIDR, mask bits must be an integer")
	}
	p, err := ip.Prefix(n)
	if err != nil {
		return matcher{}, fail("Malformed CIDR, mask bits must be an integer")
	}
	return matcher{k: kCIDR, prefix: p}, nil
}

// numeric reads a numeric match: ["=", n], or one bound, or a lower bound (> >=) then an
// upper one (< <=), with SNS's refusals in SNS's order and at SNS's locations (SPEC-sns.md
// §8.4: test_validate_policy_numeric_operator's twelve recorded cases).
func (c *compiler) numeric(v *jnode) (matcher, error) {
	if v.kind != jArray {
		return matcher{}, c.failAt("Invalid member in numeric match: ]", v.at)
	}
	list := v.vals
	if len(list) == 0 {
		return matcher{}, c.failAt("Invalid member in numeric match: ]", v.end)
	}
	// next is where the parser stands once it has read the token after element i.
	next := func(i int) int {
		if i+1 < len(list) {
			return list[i+1].at
		}
		return v.end
	}
	m := matcher{k: kNumeric, lo: math.Inf(-1), hi: math.Inf(1)}
	haveLo, haveHi := false, false
	for i := 0; i < len(list); i += 2 {
		e := list[i]
		if e.kind != jString {
			if i == 0 {
				return matcher{}, c.failAt("Invalid member in numeric match: "+scalarText(e), e.at)
			}
			return matcher{}, c.failAt("Bad value in numeric range: "+scalarText(e), e.at)
		}
		op := e.text
		switch {
		case i > 0 && haveLo && haveHi:
			return matcher{}, c.failAt("Too many terms in numeric range expression", e.at)
		case i > 0 && haveHi:
			return matcher{}, c.failAt("Too many elements in numeric expression", e.at)
		case i > 0 && op != "<" && op != "<=":
			return matcher{}, c.failAt("Bad numeric range operator: "+op, e.end)
		case i == 0 && op != "=" && op != "<" && op != "<=" && op != ">" && op != ">=":
			return matcher{}, c.failAt("Unrecognized numeric range operator: "+op, next(i))
		}
		if i+1 >= len(list) {
			return matcher{}, c.failAt("Value of "+opName(op)+" must be numeric", v.end)
		}
		n := list[i+1]
		f, fine := toFloat(n.text)
		if n.kind != jNumber || !fine {
			return matcher{}, c.failAt("Value of "+opName(op)+" must be numeric", n.at)
		}
		switch op {
		case "=":
			if len(list) > 2 {
				return matcher{}, c.failAt("Too many elements in numeric expression", list[2].at)
			}
			m.lo, m.hi, m.loInc, m.hiInc = f, f, true, true
			return m, nil
		case ">", ">=":
			m.lo, m.loInc, haveLo = f, op == ">=", true
		case "<", "<=":
			m.hi, m.hiInc, haveHi = f, op == "<=", true
		}
	}
	if haveLo && haveHi && m.lo >= m.hi {
		return matcher{}, c.failAt("Bottom must be less than top", v.end)
	}
	return m, nil
}

func opName(op string) string {
	if op == "=" {
		return "equals"
	}
	return op
}

func scalarText(v *jnode) string {
	switch v.kind {
	case jNumber, jString, jTrue, jFalse, jNull:
		return v.text
	}
	return "]"
}

func (c *compiler) anythingBut(v *jnode) (matcher, error) {
	m := matcher{k: kAnythingBut}
	add := func(e *jnode) error {
		switch e.kind {
		case jString:
			m.strs = append(m.strs, e.text)
		case jNumber:
			f, ok := toFloat(e.text)
			if !ok {
				return c.failAt("Value of anything-but must be an array or single string/number value.", e.at)
			}
			m.nums = append(m.nums, f)
		default:
			return c.failAt("Value of anything-but must be an array or single string/number value.", e.at)
		}
		return nil
	}
	switch v.kind {
	case jArray:
		if len(v.vals) == 0 {
			return m, c.failAt("Empty arrays are not allowed", v.end)
		}
		for _, e := range v.vals {
			if err := add(e); err != nil {
				return m, err
			}
		}
	case jObject:
		if c.opts.refuses(AnythingButOperator) {
			return m, &UnsupportedError{What: "anything-but with an operator"}
		}
		switch len(v.keys) {
		case 0:
			return m, c.failAt("Only one key allowed in match expression", v.end)
		case 1:
		default:
			return m, c.failAt("Only one key allowed in match expression", v.vals[1].at)
		}
		op, inner := v.keys[0], v.vals[0]
		if op != "prefix" {
			return m, c.failAt("Unsupported anything-but pattern: "+op, inner.at)
		}
		if inner.kind != jString {
			return m, c.failAt("prefix match pattern must be a string", inner.at)
		}
		return matcher{k: kAnythingButPrefix, str: inner.text}, nil
	default:
		if err := add(v); err != nil {
			return m, err
		}
	}
	return m, nil
}

// combinations counts a policy's combinations, as SNS does (the filter policy constraints
// guide; SPEC-sns.md §8.3): the product over its arrays of each one's length times its
// nesting depth (a top-level key's array counts its length; one under a nested key twice
// it), an $or adding its branches' counts. The guide's nested example counts 3×4 × 2×3 ×
// 1×3 = 216, over 150 [AWS, test_sub_filter_policy_nested_property_constraints]; its $or
// examples 4 × (6 + 4 × (4 + 4)) = 152 and 5 × 2×2 × (1×2 + 3×2) = 160 [AWS,
// test_policy_complexity_with_or]. A product over 2^20 stops counting.
func combinations(o *object, depth int) int {
	n := 1
	for i := range o.keys {
		r := &o.keys[i]
		if r.child != nil {
			n *= combinations(r.child, depth+1)
		} else {
			n *= len(r.matchers) * depth
		}
		if n > 1<<20 {
			return n
		}
	}
	for _, branches := range o.ors {
		sum := 0
		for i := range branches {
			sum += combinations(&branches[i], depth)
			if sum > 1<<20 {
				return sum
			}
		}
		n *= sum
		if n > 1<<20 {
			return n
		}
	}
	return n
}
