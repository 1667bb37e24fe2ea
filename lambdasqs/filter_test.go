package lambdasqs_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// filtered sends one message with body and a String attribute "kind" (when kind is not "")
// through a trigger with the patterns, and reports whether the handler saw it.
func filtered(t *testing.T, body, kind string, patterns ...string) (invoked bool) {
	t.Helper()
	ctx := context.Background()
	f := sqsfake.New()
	url := queue(t, f, "q", nil)
	in := &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(body)}
	if kind != "" {
		in.MessageAttributes = map[string]types.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String(kind)}}
	}
	out, err := f.SendMessage(ctx, in)
	require.NoError(t, err)
	var fc lambdasqs.FilterCriteria
	for _, p := range patterns {
		fc.Filters = append(fc.Filters, lambdasqs.Filter{Pattern: p})
	}
	trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{FilterCriteria: fc})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	info, _ := f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight, "a message is either handled or deleted by the filter")
	if len(trig.Invocations()) == 1 {
		assert.Empty(t, trig.Filtered())
		return true
	}
	assert.Empty(t, trig.Invocations())
	assert.Equal(t, []string{*out.MessageId}, trig.Filtered())
	return false
}

func TestFilterCriteriaMatchAsLambdaDoes(t *testing.T) {
	order := `{"kind":"order","id":"ORD-42.png","total":25,"tags":["a","rush"],"meta":{"region":"EU"},"note":null}`
	for _, tc := range []struct {
		name     string
		body     string
		kind     string
		patterns []string
		want     bool
	}{
		{"no filters: everything is invoked", order, "", nil, true},
		{"exact string", order, "", []string{`{"body":{"kind":["order"]}}`}, true},
		{"exact string mismatch", order, "", []string{`{"body":{"kind":["refund"]}}`}, false},
		{"exact match is case sensitive", order, "", []string{`{"body":{"kind":["ORDER"]}}`}, false},
		{"one of several values", order, "", []string{`{"body":{"kind":["refund","order"]}}`}, true},
		{"exact number", order, "", []string{`{"body":{"total":[25]}}`}, true},
		{"a number does not match its string", order, "", []string{`{"body":{"total":["25"]}}`}, false},
		{"null", order, "", []string{`{"body":{"note":[null]}}`}, true},
		{"nested object", order, "", []string{`{"body":{"meta":{"region":["EU"]}}}`}, true},
		{"fields are ANDed", order, "", []string{`{"body":{"kind":["order"],"total":[26]}}`}, false},
		{"an array in the body matches by any element", order, "", []string{`{"body":{"tags":["rush"]}}`}, true},
		{"prefix", order, "", []string{`{"body":{"id":[{"prefix":"ORD-"}]}}`}, true},
		{"prefix mismatch", order, "", []string{`{"body":{"id":[{"prefix":"INV-"}]}}`}, false},
		{"suffix", order, "", []string{`{"body":{"id":[{"suffix":".png"}]}}`}, true},
		{"equals-ignore-case", order, "", []string{`{"body":{"kind":[{"equals-ignore-case":"ORDER"}]}}`}, true},
		{"anything-but a value", order, "", []string{`{"body":{"kind":[{"anything-but":"refund"}]}}`}, true},
		{"anything-but a list containing it", order, "", []string{`{"body":{"kind":[{"anything-but":["refund","order"]}]}}`}, false},
		{"anything-but a number", order, "", []string{`{"body":{"total":[{"anything-but":25}]}}`}, false},
		{"anything-but does not match a missing field", order, "", []string{`{"body":{"missing":[{"anything-but":"x"}]}}`}, false},
		{"numeric range", order, "", []string{`{"body":{"total":[{"numeric":[">",0,"<=",25]}]}}`}, true},
		{"numeric range excludes", order, "", []string{`{"body":{"total":[{"numeric":[">",25]}]}}`}, false},
		{"numeric equals", order, "", []string{`{"body":{"total":[{"numeric":["=",25]}]}}`}, true},
		{"numeric on a string", order, "", []string{`{"body":{"kind":[{"numeric":[">",0]}]}}`}, false},
		{"exists true", order, "", []string{`{"body":{"kind":[{"exists":true}]}}`}, true},
		{"exists true on a missing field", order, "", []string{`{"body":{"missing":[{"exists":true}]}}`}, false},
		{"exists false on a missing field", order, "", []string{`{"body":{"missing":[{"exists":false}]}}`}, true},
		{"exists false on a present field", order, "", []string{`{"body":{"kind":[{"exists":false}]}}`}, false},
		{"a value pattern on an object field does not match", order, "", []string{`{"body":{"meta":["EU"]}}`}, false},
		{"an object pattern on a string field does not match", order, "", []string{`{"body":{"kind":{"x":["y"]}}}`}, false},
		{"exists true on an object field does not match", order, "", []string{`{"body":{"meta":[{"exists":true}]}}`}, false},
		{"prefix on an array matches by any element", order, "", []string{`{"body":{"tags":[{"prefix":"ru"}]}}`}, true},
		// EventBridge flattens arrays of objects: a field of the pattern matches the values that
		// field has in any element.
		{"object pattern on an array of objects", `{"items":[{"kind":"a"},{"kind":"b"}]}`, "", []string{`{"body":{"items":{"kind":["b"]}}}`}, true},
		{"object pattern on an array of objects, no element matches", `{"items":[{"kind":"a"}]}`, "", []string{`{"body":{"items":{"kind":["b"]}}}`}, false},
		{"flattened fields match across elements", `{"items":[{"kind":"a"},{"qty":2}]}`, "", []string{`{"body":{"items":{"kind":["a"],"qty":[2]}}}`}, true},
		{"exists on a field of an array's objects", `{"items":[{"kind":"a"}]}`, "", []string{`{"body":{"items":{"kind":[{"exists":true}]}}}`}, true},
		// event-ruler, which EventBridge, Lambda and SNS filter with, matches fields by their
		// flattened paths, joined by dots: a key "a.b" names the nested field b of a.
		{"a dotted key names a nested field", `{"a":{"b":"x"}}`, "", []string{`{"body":{"a.b":["x"]}}`}, true},
		// exists works on leaf values only (EventBridge's content filtering doc): an empty array has none.
		{"exists true on an empty array does not match", `{"a":[]}`, "", []string{`{"body":{"a":[{"exists":true}]}}`}, false},
		// anything-but matches a value it does not list even when it is null, as AWS was seen
		// to (localstack/localstack#9711); a boolean by the same rule.
		{"anything-but matches a null", `{"a":null}`, "", []string{`{"body":{"a":[{"anything-but":["x"]}]}}`}, true},
		{"anything-but matches a boolean", `{"a":true}`, "", []string{`{"body":{"a":[{"anything-but":["x"]}]}}`}, true},
		{"patterns are ORed", order, "", []string{`{"body":{"kind":["refund"]}}`, `{"body":{"total":[25]}}`}, true},
		{"no pattern matches", order, "", []string{`{"body":{"kind":["refund"]}}`, `{"body":{"total":[1]}}`}, false},
		{"plain body, plain pattern", "hello world", "", []string{`{"body":[{"prefix":"hello"}]}`}, true},
		{"plain body, object pattern: dropped", "hello world", "", []string{`{"body":{"kind":["order"]}}`}, false},
		{"JSON body, plain pattern: dropped", `"hello"`, "", []string{`{"body":["hello"]}`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, filtered(t, tc.body, tc.kind, tc.patterns...))
		})
	}
}

func TestFilterCriteriaValidation(t *testing.T) {
	f := sqsfake.New()
	queue(t, f, "q", nil)
	six := make([]lambdasqs.Filter, 6)
	for i := range six {
		six[i].Pattern = `{"body":{"a":["b"]}}`
	}
	invalid := &lambdasqs.Error{Code: "InvalidParameterValueException", Message: "Invalid filter pattern definition."}
	for _, tc := range []struct {
		name    string
		filters []lambdasqs.Filter
		want    *lambdasqs.Error
		unsupp  string // a lambdasqs refusal, not Lambda's
	}{
		{"five filters", six[:5], nil, ""},
		{"six filters", six, &lambdasqs.Error{Code: "InvalidParameterValueException", Message: "The number of filters in FilterCriteria (6) exceeds the quota of 5"}, ""},
		{"not JSON", []lambdasqs.Filter{{Pattern: `{"body":`}}, invalid, ""},
		{"not an object", []lambdasqs.Filter{{Pattern: `["body"]`}}, invalid, ""},
		{"empty object", []lambdasqs.Filter{{Pattern: `{}`}}, invalid, ""},
		{"a leaf that is not an array", []lambdasqs.Filter{{Pattern: `{"body":{"a":"b"}}`}}, invalid, ""},
		{"an empty array", []lambdasqs.Filter{{Pattern: `{"body":{"a":[]}}`}}, invalid, ""},
		{"an unknown operator", []lambdasqs.Filter{{Pattern: `{"body":{"a":[{"startswith":"b"}]}}`}}, invalid, ""},
		{"a bad numeric operator", []lambdasqs.Filter{{Pattern: `{"body":{"a":[{"numeric":["!=",1]}]}}`}}, invalid, ""},
		{"exists not a boolean", []lambdasqs.Filter{{Pattern: `{"body":{"a":[{"exists":"yes"}]}}`}}, invalid, ""},
		{"wildcard", []lambdasqs.Filter{{Pattern: `{"body":{"a":[{"wildcard":"*b"}]}}`}}, nil, "wildcard"},
		{"$or", []lambdasqs.Filter{{Pattern: `{"body":{"$or":{"a":["b"]}}}`}}, nil, "$or"},
		{"$or as Lambda writes it", []lambdasqs.Filter{{Pattern: `{"body":{"$or":[{"a":["x"]},{"b":["y"]}]}}`}}, nil, "$or"},
		{"another record key", []lambdasqs.Filter{{Pattern: `{"messageId":["x"]}`}}, nil, `"messageId"`},
		// SQS event source mappings filter on body only (SPEC-lambda.md R28).
		{"message attributes", []lambdasqs.Filter{{Pattern: `{"messageAttributes":{"kind":{"stringValue":["urgent"]}}}`}}, nil, `"messageAttributes"`},
		{"system attributes", []lambdasqs.Filter{{Pattern: `{"attributes":{"ApproximateReceiveCount":["1"]}}`}}, nil, `"attributes"`},
		// The pattern's form is checked before the key: issue 19's two patterns.
		{"another key with a value that is not a list", []lambdasqs.Filter{{Pattern: `{"eventSource": "aws:sqs"}`}}, invalid, ""},
		{"another key with an empty list", []lambdasqs.Filter{{Pattern: `{"eventSource": []}`}}, invalid, ""},
		{"body and a malformed other key", []lambdasqs.Filter{{Pattern: `{"body":{"a":["b"]},"eventSource":"aws:sqs"}`}}, invalid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{FilterCriteria: lambdasqs.FilterCriteria{Filters: tc.filters}})
			if err == nil {
				defer trig.Close()
			}
			switch {
			case tc.unsupp != "":
				require.Error(t, err)
				var le *lambdasqs.Error
				assert.False(t, errors.As(err, &le), "a lambdasqs limit is not presented as Lambda's error")
				assert.True(t, strings.Contains(err.Error(), tc.unsupp) && strings.Contains(err.Error(), "not supported by lambdasqs"), err.Error())
			case tc.want == nil:
				require.NoError(t, err)
			default:
				var le *lambdasqs.Error
				require.True(t, errors.As(err, &le), "%v", err)
				assert.Equal(t, tc.want, le)
			}
		})
	}
}

func TestFilteredMessagesAreDeletedAndTheRestBatched(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	url := queue(t, f, "q", nil)
	var keep []string
	for i, b := range []string{`{"k":"a"}`, `{"k":"b"}`, `{"k":"a"}`, "plain", `{"k":"a"}`} {
		out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(b)})
		require.NoError(t, err)
		if i%2 == 0 {
			keep = append(keep, *out.MessageId)
		}
	}
	var seen []string
	trig, err := lambdasqs.New(f, "q", func(_ context.Context, ev events.SQSEvent) error {
		for _, r := range ev.Records {
			seen = append(seen, r.MessageId)
		}
		return nil
	}, lambdasqs.Config{BatchSize: 2, FilterCriteria: lambdasqs.FilterCriteria{Filters: []lambdasqs.Filter{{Pattern: `{"body":{"k":["a"]}}`}}}})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	assert.Equal(t, keep, seen)
	assert.Len(t, trig.Filtered(), 2)
	info, _ := f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight)
}
