package lambdasqs

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sqsfake/sqsfake/internal/eventpattern"
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

// lambdaDialect is Lambda's dialect of the pattern language (SPEC-lambda.md R27–R30), as
// options of the evaluator SNS's filter policies use: no SNS limits (Lambda's is the
// pattern's length), no empty objects, arrays of objects flattened, and what lambdasqs does
// not model — $or, wildcard, cidr, anything-but with an operator, an operator with an object
// operand — refused as lambdasqs's limit rather than guessed.
var lambdaDialect = eventpattern.Options{
	Body:           true,
	NoEmptyObjects: true,
	FlattenArrays:  true,
	Unsupported:    eventpattern.Or | eventpattern.Wildcard | eventpattern.CIDR | eventpattern.AnythingButOperator | eventpattern.ObjectOperand,
}

// pattern is a compiled filter pattern on the record's body.
type pattern struct {
	p *eventpattern.Pattern
	// object: the pattern on body is an object pattern, which needs a JSON object body;
	// else a list of matchers, which needs a body that is not JSON (R30).
	object bool
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
		// The pattern's form first, as Lambda checks it: {"eventSource": "aws:sqs"} (a
		// value that is not a list) is "Invalid filter pattern definition." whatever its key.
		p, err := eventpattern.Compile(f.Pattern, lambdaDialect)
		if err != nil {
			var ue *eventpattern.UnsupportedError
			if errors.As(err, &ue) {
				return nil, unsupported(ue.What)
			}
			return nil, invalidPattern()
		}
		for _, k := range p.Keys() {
			if k != "body" {
				// "Amazon SQS event source mappings only support filtering on the body key"
				// (Lambda's docs, SPEC-lambda.md R28); what Lambda does with a pattern on another
				// key is not documented, so it is refused here rather than guessed.
				return nil, unsupported(fmt.Sprintf("the record key %q (SQS event source mappings filter on body only)", k))
			}
		}
		out = append(out, &pattern{p: p, object: p.Nested("body")})
	}
	return out, nil
}

// matchAny reports whether the record matches at least one of the patterns (R27). The
// body is parsed once.
func matchAny(ps []*pattern, r *events.SQSMessage) bool {
	var body any
	isJSON := json.Unmarshal([]byte(r.Body), &body) == nil
	// The record as each kind of pattern sees it (R30): an object pattern needs a JSON
	// object body, a list of matchers a body that is not JSON, which it sees as a string;
	// otherwise the record is dropped.
	var view map[string]any
	if obj, ok := body.(map[string]any); ok {
		view = map[string]any{"body": obj}
	} else if !isJSON {
		view = map[string]any{"body": r.Body}
	}
	for _, p := range ps {
		if view != nil && p.object == isJSON && p.p.MatchBody(view) {
			return true
		}
	}
	return false
}
