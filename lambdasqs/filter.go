package lambdasqs

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// FilterCriteria is CreateEventSourceMapping's FilterCriteria: up to MaxFilters filters, ORed
// together; a message that matches none of them is deleted without an invocation (R27, R29).
type FilterCriteria struct {
	Filters []Filter
}

// Filter is one filter of FilterCriteria: Pattern is an EventBridge-style JSON pattern on the
// Lambda record, such as {"body":{"kind":["order"]}}.
type Filter struct {
	Pattern string
}

// MaxFilters is Lambda's default quota of filters per event source mapping (R27).
const MaxFilters = 5

// maxPatternLength is the length constraint of Filter.Pattern in Lambda's API (API_Filter).
const maxPatternLength = 4096

// invalidPattern is Lambda's answer to a pattern that is not a valid filter pattern (message
// seen in aws/aws-cdk#23057: "Invalid filter pattern definition.").
func invalidPattern() *Error {
	return invalidParameter("Invalid filter pattern definition.")
}

// unsupported is this package's refusal of a pattern Lambda would accept but lambdasqs does not
// model; it is not one of Lambda's errors.
func unsupported(what string) error {
	return fmt.Errorf("lambdasqs: filter pattern: %s is not supported by lambdasqs", what)
}

// pattern is a compiled filter pattern: a tree of fields, each ANDed, whose leaves are lists of
// matchers, ORed.
type pattern struct {
	fields map[string]*pattern // a nested object pattern
	leaf   []matcher           // a list of matchers (when fields is nil)
}

type matcher struct {
	kind   string // "value", "prefix", "suffix", "equals-ignore-case", "anything-but", "numeric", "exists"
	value  any    // "value": string, float64, bool or nil
	str    string // prefix, suffix, equals-ignore-case
	but    []any  // anything-but: strings or float64s
	ranges []numericBound
	exists bool
}

type numericBound struct {
	op string
	n  float64
}

// compileFilters validates the criteria as CreateEventSourceMapping does and compiles them.
func compileFilters(fc FilterCriteria) ([]*pattern, error) {
	if len(fc.Filters) > MaxFilters {
		// R27, R41: more filters than the quota is refused; the exact text is not verified.
		return nil, invalidParameter("The number of filters in FilterCriteria (%d) exceeds the quota of %d", len(fc.Filters), MaxFilters)
	}
	var out []*pattern
	for i, f := range fc.Filters {
		if len(f.Pattern) > maxPatternLength {
			return nil, constraint(f.Pattern, fmt.Sprintf("filterCriteria.filters.%d.member.pattern", i+1), "Member must have length less than or equal to 4096")
		}
		var raw any
		dec := json.NewDecoder(strings.NewReader(f.Pattern))
		dec.UseNumber()
		if err := dec.Decode(&raw); err != nil || dec.More() {
			return nil, invalidPattern()
		}
		obj, ok := raw.(map[string]any)
		if !ok || len(obj) == 0 {
			return nil, invalidPattern()
		}
		// The pattern's form first, as Lambda checks it: {"eventSource": "aws:sqs"} (a
		// value that is not a list) is "Invalid filter pattern definition." whatever its key.
		p, err := compileObject(obj)
		if err != nil {
			return nil, err
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			switch k {
			case "body":
			default:
				// "Amazon SQS event source mappings only support filtering on the body key"
				// (Lambda's docs, SPEC-lambda.md R28); what Lambda does with a pattern on another
				// key is not documented, so it is refused here rather than guessed.
				return nil, unsupported(fmt.Sprintf("the record key %q (SQS event source mappings filter on body only)", k))
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func compileObject(obj map[string]any) (*pattern, error) {
	p := &pattern{fields: make(map[string]*pattern, len(obj))}
	for _, k := range slices.Sorted(maps.Keys(obj)) { // the same error on every run
		v := obj[k]
		if k == "$or" { // Lambda takes {"$or": [pattern, …]}; not modelled here
			return nil, unsupported("$or")
		}
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				return nil, invalidPattern()
			}
			sub, err := compileObject(v)
			if err != nil {
				return nil, err
			}
			p.fields[k] = sub
		case []any:
			leaf, err := compileLeaf(v)
			if err != nil {
				return nil, err
			}
			p.fields[k] = &pattern{leaf: leaf}
		default:
			return nil, invalidPattern() // a leaf must be an array of matchers
		}
	}
	return p, nil
}

func compileLeaf(list []any) ([]matcher, error) {
	if len(list) == 0 {
		return nil, invalidPattern()
	}
	out := make([]matcher, 0, len(list))
	for _, v := range list {
		switch v := v.(type) {
		case nil, string, bool:
			out = append(out, matcher{kind: "value", value: v})
		case json.Number:
			n, err := v.Float64()
			if err != nil {
				return nil, invalidPattern()
			}
			out = append(out, matcher{kind: "value", value: n})
		case map[string]any:
			m, err := compileOperator(v)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		default:
			return nil, invalidPattern()
		}
	}
	return out, nil
}

func compileOperator(op map[string]any) (matcher, error) {
	if len(op) != 1 {
		return matcher{}, invalidPattern()
	}
	for k, v := range op {
		switch k {
		case "prefix", "suffix", "equals-ignore-case":
			s, ok := v.(string)
			if !ok {
				if _, obj := v.(map[string]any); obj {
					return matcher{}, unsupported(k + " with an object operand")
				}
				return matcher{}, invalidPattern()
			}
			return matcher{kind: k, str: s}, nil
		case "exists":
			b, ok := v.(bool)
			if !ok {
				return matcher{}, invalidPattern()
			}
			return matcher{kind: k, exists: b}, nil
		case "anything-but":
			var vals []any
			switch v := v.(type) {
			case string, json.Number:
				vals = []any{v}
			case []any:
				if len(v) == 0 {
					return matcher{}, invalidPattern()
				}
				vals = v
			case map[string]any:
				return matcher{}, unsupported("anything-but with an operator")
			default:
				return matcher{}, invalidPattern()
			}
			m := matcher{kind: k}
			for _, x := range vals {
				switch x := x.(type) {
				case string:
					m.but = append(m.but, x)
				case json.Number:
					n, err := x.Float64()
					if err != nil {
						return matcher{}, invalidPattern()
					}
					m.but = append(m.but, n)
				default:
					return matcher{}, invalidPattern()
				}
			}
			return m, nil
		case "numeric":
			list, ok := v.([]any)
			if !ok || len(list) == 0 || len(list)%2 != 0 || len(list) > 4 {
				return matcher{}, invalidPattern()
			}
			m := matcher{kind: k}
			for i := 0; i < len(list); i += 2 {
				o, ok1 := list[i].(string)
				num, ok2 := list[i+1].(json.Number)
				if !ok1 || !ok2 || !slices.Contains([]string{"=", "<", "<=", ">", ">="}, o) {
					return matcher{}, invalidPattern()
				}
				n, err := num.Float64()
				if err != nil {
					return matcher{}, invalidPattern()
				}
				m.ranges = append(m.ranges, numericBound{o, n})
			}
			return m, nil
		case "wildcard", "cidr":
			return matcher{}, unsupported(k)
		default:
			return matcher{}, invalidPattern()
		}
	}
	panic("unreachable")
}

// filterView is the part of a record a pattern sees: its body, parsed when it is JSON.
func filterView(r *events.SQSMessage) map[string]any {
	var body any
	if json.Unmarshal([]byte(r.Body), &body) == nil {
		return map[string]any{"body": jsonBody{body}}
	}
	return map[string]any{"body": r.Body}
}

// jsonBody marks a body that parsed as JSON, which only an object pattern on body may match
// (R30).
type jsonBody struct{ v any }

// matchAny reports whether the record matches at least one of the patterns (R27).
func matchAny(ps []*pattern, r *events.SQSMessage) bool {
	view := filterView(r)
	for _, p := range ps {
		if p.matchObject(view) {
			return true
		}
	}
	return false
}

func (p *pattern) matchObject(obj map[string]any) bool {
	for k, sub := range p.fields {
		v, present := obj[k]
		if k == "body" {
			jb, isJSON := v.(jsonBody)
			if sub.fields != nil {
				// An object pattern on body needs a JSON object body; anything else is dropped (R30).
				o, ok := jb.v.(map[string]any)
				if !isJSON || !ok || !sub.matchObject(o) {
					return false
				}
				continue
			}
			if isJSON {
				// A plain-string pattern on a JSON body: dropped (R30).
				return false
			}
		}
		if !sub.match(v, present) {
			return false
		}
	}
	return true
}

func (p *pattern) match(v any, present bool) bool {
	if p.fields != nil {
		switch x := v.(type) {
		case map[string]any:
			return p.matchObject(x)
		case []any:
			return p.matchFlattened(x)
		}
		return false
	}
	for _, m := range p.leaf {
		if m.kind == "exists" {
			// exists matches leaf values only: a field holding an object does not count.
			_, isObj := v.(map[string]any)
			if m.exists == (present && !isObj) {
				return true
			}
			continue
		}
		if !present {
			continue
		}
		if list, ok := v.([]any); ok {
			// An array in the event matches when any of its elements does.
			if slices.ContainsFunc(list, m.matchValue) {
				return true
			}
			continue
		}
		if m.matchValue(v) {
			return true
		}
	}
	return false
}

// matchFlattened matches an object pattern against an array of objects as EventBridge does,
// which flattens the array: each field of the pattern is matched against the values that field
// has in any of the elements (so two fields may match in different elements).
func (p *pattern) matchFlattened(list []any) bool {
	for k, sub := range p.fields {
		var values []any
		present := false
		for _, e := range list {
			o, ok := e.(map[string]any)
			if !ok {
				continue
			}
			fv, ok := o[k]
			if !ok {
				continue
			}
			present = true
			if inner, ok := fv.([]any); ok {
				values = append(values, inner...)
			} else {
				values = append(values, fv)
			}
		}
		var v any = values
		if len(values) == 1 {
			v = values[0] // one value: matched as it is, an object by an object pattern too
		}
		if !sub.match(v, present) {
			return false
		}
	}
	return true
}

func (m matcher) matchValue(v any) bool {
	switch m.kind {
	case "value":
		return v == m.value
	case "prefix":
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, m.str)
	case "suffix":
		s, ok := v.(string)
		return ok && strings.HasSuffix(s, m.str)
	case "equals-ignore-case":
		s, ok := v.(string)
		return ok && strings.EqualFold(s, m.str)
	case "anything-but":
		switch v.(type) {
		case string, float64:
			return !slices.Contains(m.but, v)
		}
		return false
	case "numeric":
		n, ok := v.(float64)
		if !ok || math.IsNaN(n) {
			return false
		}
		for _, b := range m.ranges {
			var in bool
			switch b.op {
			case "=":
				in = n == b.n
			case "<":
				in = n < b.n
			case "<=":
				in = n <= b.n
			case ">":
				in = n > b.n
			case ">=":
				in = n >= b.n
			}
			if !in {
				return false
			}
		}
		return true
	}
	return false
}
