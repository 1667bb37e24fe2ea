package eventpattern

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lambda is Lambda's dialect as lambdasqs compiles it.
var lambda = Options{Body: true, NoEmptyObjects: true, FlattenArrays: true, Unsupported: Or | Wildcard | CIDR | AnythingButOperator | ObjectOperand}

func TestExistsMatchesLeavesOnly(t *testing.T) {
	// SNS's guide: "exists" matching only works on leaf nodes, not on intermediate nodes; a
	// key holding an object is not there for a list of matchers, in both dialects.
	tests := []struct {
		policy, body string
		want         bool
	}{
		{`{"a":[{"exists":true}]}`, `{"a":{"b":1}}`, false},
		{`{"a":[{"exists":false}]}`, `{"a":{"b":1}}`, true},
		{`{"a":[{"exists":true}]}`, `{"a":[{"b":1}]}`, false},
		{`{"a":[{"exists":true}]}`, `{"a":1}`, true},
		{`{"a":[{"exists":true}]}`, `{"a":null}`, true},
		{`{"a":[{"exists":true}]}`, `{"a":["x"]}`, true},
		{`{"a":[{"anything-but":"x"}]}`, `{"a":{"b":1}}`, false},
		{`{"a":{"b":[{"exists":true}]}}`, `{"a":{"b":1}}`, true},
	}
	for _, opts := range []Options{{Body: true, Limits: true}, lambda} {
		for _, tt := range tests {
			p, err := Compile(tt.policy, opts)
			require.NoError(t, err, tt.policy)
			b, _ := ParseBody(tt.body)
			assert.Equal(t, tt.want, p.MatchBody(b), "%s on %s (%+v)", tt.policy, tt.body, opts)
		}
	}
}

func TestArraysOfObjectsMatchPerElementOrFlattenedByDialect(t *testing.T) {
	tests := []struct {
		policy, body string
		sns, lambda  bool
	}{
		{`{"a":{"k":["x"],"q":[2]}}`, `{"a":[{"k":"x"},{"q":2}]}`, false, true},
		{`{"a":{"k":["x"],"q":[2]}}`, `{"a":[{"k":"x","q":2}]}`, true, true},
		{`{"a":{"k":["x"]}}`, `{"a":[{"k":"y"},{"k":"x"}]}`, true, true},
		{`{"a":{"k":["x"]}}`, `{"a":[{"k":"y"}]}`, false, false},
		{`{"a":{"k":[{"exists":false}]}}`, `{"a":[{"j":1},{"j":2}]}`, true, true},
		{`{"a":{"k":[{"exists":false}]}}`, `{"a":[{"j":1},{"k":2}]}`, true, false},
		{`{"a":{"b":{"c":["x"]},"d":["y"]}}`, `{"a":[{"b":[{"c":"x"}]},{"d":"y"}]}`, false, true},
		{`{"a":{"b":{"c":["x"]}}}`, `{"a":[{"b":{"c":"z"}},{"b":{"c":"x"}}]}`, true, true},
	}
	for _, tt := range tests {
		b, _ := ParseBody(tt.body)
		sns, err := Compile(tt.policy, Options{Body: true, Limits: true})
		require.NoError(t, err)
		assert.Equal(t, tt.sns, sns.MatchBody(b), "SNS: %s on %s", tt.policy, tt.body)
		l, err := Compile(tt.policy, lambda)
		require.NoError(t, err)
		assert.Equal(t, tt.lambda, l.MatchBody(b), "Lambda: %s on %s", tt.policy, tt.body)
	}
}

func TestADialectRefusesWhatItLeavesOut(t *testing.T) {
	tests := []struct {
		pattern string
		what    string // the UnsupportedError's, or "" for another refusal
		sns     bool   // SNS compiles it
	}{
		{`{"a":[{"wildcard":"x*"}]}`, "wildcard", true},
		{`{"a":[{"cidr":"10.0.0.0/8"}]}`, "cidr", true},
		{`{"$or":[{"a":["1"]},{"b":["2"]}]}`, "$or", true},
		{`{"a":{"$or":{"b":["2"]}}}`, "$or", true},
		{`{"a":[{"anything-but":{"prefix":"x"}}]}`, "anything-but with an operator", true},
		{`{"a":[{"prefix":{"equals-ignore-case":"x"}}]}`, "prefix with an object operand", false},
		{`{}`, "", true},
		{`{"a":{}}`, "", true},
		{`{"a":[{"numeric":["<",1,">",0]}]}`, "", false},
	}
	for _, tt := range tests {
		_, err := Compile(tt.pattern, lambda)
		require.Error(t, err, tt.pattern)
		var ue *UnsupportedError
		if tt.what != "" {
			require.True(t, errors.As(err, &ue), "%s: %v", tt.pattern, err)
			assert.Equal(t, tt.what, ue.What)
		} else {
			assert.False(t, errors.As(err, &ue), "%s: %v", tt.pattern, err)
		}
		_, err = Compile(tt.pattern, Options{Body: true, Limits: true})
		assert.Equal(t, tt.sns, err == nil, "SNS: %s: %v", tt.pattern, err)
	}
}

func TestSNSLimitsAreAnOption(t *testing.T) {
	six := `{"a":["1"],"b":["1"],"c":["1"],"d":["1"],"e":["1"],"f":["1"]}`
	_, err := Compile(six, Options{Body: true, Limits: true})
	assert.EqualError(t, err, "FilterPolicy: Filter policy can not have more than 5 keys")
	_, err = Compile(six, lambda)
	assert.NoError(t, err)
}

func TestMatchingWithOrAllocatesNothing(t *testing.T) {
	p, err := CompileFilterPolicy(`{"kind":["order"],"$or":[{"region":["eu"]},{"amount":[{"numeric":[">",100]}]}]}`, false)
	require.NoError(t, err)
	attrs := map[string]Attr{"kind": {"String", "order"}, "amount": {"Number", "120.5"}}
	require.True(t, p.MatchAttributes(attrs))
	assert.Zero(t, testing.AllocsPerRun(100, func() { p.MatchAttributes(attrs) }))
	bp, err := CompileFilterPolicy(`{"kind":["order"],"$or":[{"region":["eu"]},{"amount":[{"numeric":[">",100]}]}]}`, true)
	require.NoError(t, err)
	body, _ := ParseBody(`{"kind":"order","amount":120.5}`)
	require.True(t, bp.MatchBody(body))
	assert.Zero(t, testing.AllocsPerRun(100, func() { bp.MatchBody(body) }))
}
