// Package eventpattern compiles and matches EventBridge's pattern language in the two dialects
// the fakes speak: Amazon SNS subscription filter policies (CompileFilterPolicy) and Lambda's
// event filters for SQS event source mappings (package lambdasqs, through Compile and its
// Options). One compiler and one evaluator serve both; Options carries where the dialects
// differ. Patterns are compiled once and matched without allocating against message
// attributes, or against a message body parsed once per publish. SNS's refusals carry SNS's
// texts (SPEC-sns.md §8.4) without Jackson's location suffix.
package eventpattern

import (
	"encoding/json"
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
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fail("failed to parse JSON. " + jacksonText(text))
	}
	if dec.More() {
		return nil, fail("failed to parse JSON. " + jacksonText(text))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fail("failed to parse JSON. " + jacksonText(text))
	}
	if opts.Limits && len(m) > MaxKeys {
		return nil, fail("Filter policy can not have more than 5 keys")
	}
	p := &Pattern{body: opts.Body, flat: opts.FlattenArrays}
	var err error
	if p.root, err = compileObject(m, &opts); err != nil {
		return nil, err
	}
	if opts.Limits && combinations(&p.root, 1) > MaxCombinations {
		return nil, fail("Filter policy is too complex")
	}
	return p, nil
}

// jacksonText is the start of Jackson's parse error for text, as SNS prints it.
func jacksonText(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	if t == "" || t[0] == '{' || t[0] == '[' || t[0] == '"' {
		if len(t) > 1 && t[0] == '{' {
			c := strings.TrimLeft(t[1:], " \t\r\n")
			if c != "" && c[0] != '"' && c[0] != '}' {
				return "Unexpected character ('" + c[:1] + "' (code " + strconv.Itoa(int(c[0])) + ")): was expecting double-quote to start field name"
			}
		}
		return "Unexpected end-of-input"
	}
	end := strings.IndexAny(t, " \t\r\n,:{}[]\"")
	if end < 0 {
		end = len(t)
	}
	return "Unrecognized token '" + t[:end] + "': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
}

func compileObject(m map[string]any, opts *Options) (object, error) {
	var o object
	if opts.NoEmptyObjects && len(m) == 0 {
		return o, fail("Empty objects are not allowed")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := m[k]
		if k == "$or" && opts.refuses(Or) {
			return o, &UnsupportedError{What: "$or"}
		}
		if k == "$or" {
			if list, ok := v.([]any); ok && len(list) >= 2 && allObjects(list) {
				var branches []object
				for _, b := range list {
					bo, err := compileObject(b.(map[string]any), opts)
					if err != nil {
						return o, err
					}
					branches = append(branches, bo)
				}
				o.ors = append(o.ors, branches)
				continue
			}
		}
		switch x := v.(type) {
		case []any:
			if len(x) == 0 {
				return o, fail("Empty arrays are not allowed")
			}
			r := keyRule{key: k}
			for _, e := range x {
				mt, err := compileMatcher(e, opts)
				if err != nil {
					return o, err
				}
				r.matchers = append(r.matchers, mt)
			}
			o.keys = append(o.keys, r)
		case map[string]any:
			if !opts.Body {
				return o, errNestedAttributes
			}
			child, err := compileObject(x, opts)
			if err != nil {
				return o, err
			}
			o.keys = append(o.keys, keyRule{key: k, child: &child})
		default:
			return o, fail(strconv.Quote(k) + " must be an object or an array")
		}
	}
	return o, nil
}

func allObjects(list []any) bool {
	for _, e := range list {
		if _, ok := e.(map[string]any); !ok {
			return false
		}
	}
	return true
}

func toFloat(n json.Number) (float64, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil && !math.IsInf(f, 0)
}

func compileMatcher(e any, opts *Options) (matcher, error) {
	switch x := e.(type) {
	case string:
		return matcher{k: kExactString, str: x}, nil
	case json.Number:
		f, ok := toFloat(x)
		if !ok {
			return matcher{}, fail("Match value must be String, number, true, false, or null")
		}
		return matcher{k: kExactNumber, num: f}, nil
	case nil:
		return matcher{k: kExactNull}, nil
	case bool:
		return matcher{k: kExactBool, b: x}, nil
	case map[string]any:
		if len(x) != 1 {
			if len(x) == 0 {
				return matcher{}, fail("Empty objects are not allowed")
			}
			return matcher{}, fail("Only one key allowed in match expression")
		}
		for op, v := range x {
			return compileOperator(op, v, opts)
		}
	}
	return matcher{}, fail("Match value must be String, number, true, false, or null")
}

func compileOperator(op string, v any, opts *Options) (matcher, error) {
	switch {
	case op == "wildcard" && opts.refuses(Wildcard), op == "cidr" && opts.refuses(CIDR):
		return matcher{}, &UnsupportedError{What: op}
	}
	switch op {
	case "prefix", "suffix", "equals-ignore-case", "wildcard":
		s, ok := v.(string)
		if !ok {
			if _, obj := v.(map[string]any); obj && opts.refuses(ObjectOperand) {
				return matcher{}, &UnsupportedError{What: op + " with an object operand"}
			}
			return matcher{}, fail(op + " match pattern must be a string")
		}
		k := map[string]kind{"prefix": kPrefix, "suffix": kSuffix, "equals-ignore-case": kIgnoreCase, "wildcard": kWildcard}[op]
		m := matcher{k: k, str: s}
		if k == kWildcard {
			m.wild = compileWildcard(s)
		}
		return m, nil
	case "exists":
		b, ok := v.(bool)
		if !ok {
			return matcher{}, fail("exists match pattern must be either true or false.")
		}
		return matcher{k: kExists, b: b}, nil
	case "cidr":
		s, ok := v.(string)
		if !ok {
			return matcher{}, fail("prefix match pattern must be a string")
		}
		return compileCIDR(s)
	case "numeric":
		return compileNumeric(v)
	case "anything-but":
		return compileAnythingBut(v, opts)
	}
	return matcher{}, fail("Unrecognized match type " + op)
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

// compileNumeric reads a numeric match: ["=", n], or one bound, or a lower bound (> >=)
// then an upper one (< <=), with SNS's refusals in SNS's order (SPEC-sns.md §8.4).
func compileNumeric(v any) (matcher, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return matcher{}, fail("Invalid member in numeric match: ]")
	}
	m := matcher{k: kNumeric, lo: math.Inf(-1), hi: math.Inf(1)}
	haveLo, haveHi := false, false
	for i := 0; i < len(list); i += 2 {
		op, ok := list[i].(string)
		if !ok {
			if i == 0 {
				return matcher{}, fail("Invalid member in numeric match: " + scalarText(list[i]))
			}
			return matcher{}, fail("Bad value in numeric range: " + scalarText(list[i]))
		}
		switch op {
		case "=", "<", "<=", ">", ">=":
		default:
			return matcher{}, fail("Unrecognized numeric range operator: " + op)
		}
		switch {
		case i > 0 && haveLo && haveHi:
			return matcher{}, fail("Too many terms in numeric range expression")
		case i > 0 && (haveHi || op == "="):
			return matcher{}, fail("Too many elements in numeric expression")
		case i > 0 && op != "<" && op != "<=":
			return matcher{}, fail("Bad numeric range operator: " + op)
		}
		if i+1 >= len(list) {
			return matcher{}, fail("Value of " + opName(op) + " must be numeric")
		}
		n, ok := list[i+1].(json.Number)
		f, fine := toFloat(n)
		if !ok || !fine {
			return matcher{}, fail("Value of " + opName(op) + " must be numeric")
		}
		switch op {
		case "=":
			if len(list) > 2 {
				return matcher{}, fail("Too many elements in numeric expression")
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
		return matcher{}, fail("Bottom must be less than top")
	}
	return m, nil
}

func opName(op string) string {
	if op == "=" {
		return "equals"
	}
	return op
}

func scalarText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	return "]"
}

func compileAnythingBut(v any, opts *Options) (matcher, error) {
	m := matcher{k: kAnythingBut}
	add := func(e any) error {
		switch x := e.(type) {
		case string:
			m.strs = append(m.strs, x)
		case json.Number:
			f, ok := toFloat(x)
			if !ok {
				return fail("Value of anything-but must be an array or single string/number value.")
			}
			m.nums = append(m.nums, f)
		default:
			return fail("Value of anything-but must be an array or single string/number value.")
		}
		return nil
	}
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return m, fail("Empty arrays are not allowed")
		}
		for _, e := range x {
			if err := add(e); err != nil {
				return m, err
			}
		}
	case map[string]any:
		if opts.refuses(AnythingButOperator) {
			return m, &UnsupportedError{What: "anything-but with an operator"}
		}
		if len(x) != 1 {
			return m, fail("Only one key allowed in match expression")
		}
		for op, inner := range x {
			if op != "prefix" {
				return m, fail("Unsupported anything-but pattern: " + op)
			}
			s, ok := inner.(string)
			if !ok {
				return m, fail("prefix match pattern must be a string")
			}
			return matcher{k: kAnythingButPrefix, str: s}, nil
		}
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
