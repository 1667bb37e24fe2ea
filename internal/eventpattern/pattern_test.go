package eventpattern

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAttributePoliciesMatchAsSNSDocuments(t *testing.T) {
	s := func(v string) Attr { return Attr{"String", v} }
	n := func(v string) Attr { return Attr{"Number", v} }
	arr := func(v string) Attr { return Attr{"String.Array", v} }
	tests := []struct {
		policy string
		attrs  map[string]Attr
		want   bool
	}{
		{`{"sport":["rugby"]}`, map[string]Attr{"sport": s("rugby")}, true},
		{`{"sport":["rugby"]}`, map[string]Attr{"sport": s("Rugby")}, false},
		{`{"sport":["rugby","football"]}`, map[string]Attr{"sport": s("football")}, true},
		{`{"sport":["rugby"],"n":[{"numeric":[">",0]}]}`, map[string]Attr{"sport": s("rugby")}, false},
		{`{"price":[301.5]}`, map[string]Attr{"price": n("3.015e2")}, true},
		{`{"price":[301.5]}`, map[string]Attr{"price": s("301.5")}, false},
		{`{"price":[{"numeric":[">",0,"<=",150]}]}`, map[string]Attr{"price": n("150")}, true},
		{`{"price":[{"numeric":[">",0,"<=",150]}]}`, map[string]Attr{"price": n("0")}, false},
		{`{"price":[{"numeric":["=",10]}]}`, map[string]Attr{"price": n("10.0")}, true},
		{`{"c":[{"prefix":"bas"}]}`, map[string]Attr{"c": s("baseball")}, true},
		{`{"c":[{"suffix":"ball"}]}`, map[string]Attr{"c": s("baseball")}, true},
		{`{"c":[{"equals-ignore-case":"BASEBALL"}]}`, map[string]Attr{"c": s("baseBall")}, true},
		{`{"c":[{"wildcard":"ba*ll"}]}`, map[string]Attr{"c": s("baseball")}, true},
		{`{"c":[{"wildcard":"ba*x"}]}`, map[string]Attr{"c": s("baseball")}, false},
		{`{"c":[{"anything-but":["rugby","tennis"]}]}`, map[string]Attr{"c": s("golf")}, true},
		{`{"c":[{"anything-but":"rugby"}]}`, map[string]Attr{"c": s("rugby")}, false},
		{`{"c":[{"anything-but":[100]}]}`, map[string]Attr{"c": n("100")}, false},
		{`{"c":[{"anything-but":[100]}]}`, map[string]Attr{"c": n("101")}, true},
		{`{"c":[{"anything-but":{"prefix":"order-"}}]}`, map[string]Attr{"c": s("order-1")}, false},
		{`{"c":[{"anything-but":{"prefix":"order-"}}]}`, map[string]Attr{"c": s("invoice-1")}, true},
		{`{"c":[{"anything-but":["a"]}]}`, map[string]Attr{}, false},
		{`{"c":[{"exists":true}]}`, map[string]Attr{"c": s("x")}, true},
		{`{"c":[{"exists":true}]}`, map[string]Attr{}, false},
		{`{"c":[{"exists":false}]}`, map[string]Attr{}, true},
		{`{"c":[{"exists":false}]}`, map[string]Attr{"c": s("x")}, false},
		{`{"c":[null]}`, map[string]Attr{}, false},
		{`{"ip":[{"cidr":"10.0.0.0/24"}]}`, map[string]Attr{"ip": s("10.0.0.255")}, true},
		{`{"ip":[{"cidr":"10.0.0.0/24"}]}`, map[string]Attr{"ip": s("10.0.1.0")}, false},
		{`{"ip":[{"cidr":"10.0.0.0/24"}]}`, map[string]Attr{"ip": s("10.0.0.256")}, false},
		{`{"ip":[{"cidr":"2001:db8::/32"}]}`, map[string]Attr{"ip": s("2001:db8::1")}, true},
		{`{"c":["a"]}`, map[string]Attr{"c": arr(`["x","a"]`)}, true},
		{`{"c":["a"]}`, map[string]Attr{"c": arr(`["x","y"]`)}, false},
		{`{"c":[{"anything-but":["a"]}]}`, map[string]Attr{"c": arr(`["a","b"]`)}, true},
		{`{"c":[5]}`, map[string]Attr{"c": arr(`["a",5, true, null]`)}, true},
		{`{"c":["a\"b"]}`, map[string]Attr{"c": arr(`["a\"b"]`)}, true},
		{`{"c":["x"]}`, map[string]Attr{"c": {"Binary", "x"}}, false},
		{`{"$or":[{"a":["1"]},{"b":["2"]}]}`, map[string]Attr{"b": s("2")}, true},
		{`{"$or":[{"a":["1"]},{"b":["2"]}]}`, map[string]Attr{"c": s("2")}, false},
		{`{"k":["v"],"$or":[{"a":["1"]},{"b":["2"]}]}`, map[string]Attr{"k": s("v"), "a": s("1")}, true},
		{`{"c":["x"]}`, map[string]Attr{"c": {"String.custom", "x"}}, true},
	}
	for _, tt := range tests {
		p, err := CompileFilterPolicy(tt.policy, false)
		require.NoError(t, err, tt.policy)
		assert.Equal(t, tt.want, p.MatchAttributes(tt.attrs), "%s on %v", tt.policy, tt.attrs)
	}
}

func TestBodyPoliciesWalkNestedKeysArraysAndDots(t *testing.T) {
	tests := []struct {
		policy, body string
		want         bool
	}{
		{`{"a":{"b":["c"]}}`, `{"a":{"b":"c"}}`, true},
		{`{"a":{"b":["c"]}}`, `{"a":{"b":"d"}}`, false},
		{`{"a":{"b":["c"]}}`, `{"a":[{"b":"x"},{"b":"c"}]}`, true},
		{`{"a":{"b":["c"]}}`, `{"a":[[{"b":"c"}]]}`, true},
		{`{"a":["c"]}`, `{"a":["x","c"]}`, true},
		{`{"a.b":["c"]}`, `{"a":{"b":"c"}}`, true},
		{`{"a.b":["c"]}`, `{"a.b":"c"}`, true},
		{`{"a.b.c":["d"]}`, `{"a.b":{"c":"d"}}`, true},
		{`{"a.b.c":["d"]}`, `{"a":{"b.c":"d"}}`, true},
		{`{"a":["c"]}`, `not json`, false},
		{`{"a":["c"]}`, `["c"]`, false},
		{`{"a":[true]}`, `{"a":true}`, true},
		{`{"a":[null]}`, `{"a":null}`, true},
		{`{"a":[null]}`, `{}`, false},
		{`{"a":[{"exists":false}]}`, `{}`, true},
		{`{"a":[{"numeric":[">=",1]}]}`, `{"a":1}`, true},
		{`{"a":{"$or":[{"x":["1"]},{"y":["2"]}]}}`, `{"a":{"y":"2"}}`, true},
	}
	for _, tt := range tests {
		p, err := CompileFilterPolicy(tt.policy, true)
		require.NoError(t, err, tt.policy)
		b, _ := ParseBody(tt.body)
		assert.Equal(t, tt.want, p.MatchBody(b), "%s on %s", tt.policy, tt.body)
	}
}

func TestInvalidPoliciesAreRefusedWithSNSsTexts(t *testing.T) {
	tests := []struct{ policy, want string }{
		{`invalid`, "FilterPolicy: failed to parse JSON. Unrecognized token 'invalid': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"},
		{`{invalid}`, "FilterPolicy: failed to parse JSON. Unexpected character ('i' (code 105)): was expecting double-quote to start field name"},
		{`{"k":"v"}`, `FilterPolicy: "k" must be an object or an array`},
		{`{"k":[]}`, "FilterPolicy: Empty arrays are not allowed"},
		{`{"k":[["v"]]}`, "FilterPolicy: Match value must be String, number, true, false, or null"},
		{`{"k":[{"wrong-operator":1}]}`, "FilterPolicy: Unrecognized match type wrong-operator"},
		{`{"k":[{"prefix":"a","suffix":"b"}]}`, "FilterPolicy: Only one key allowed in match expression"},
		{`{"k":[{"suffix":1}]}`, "FilterPolicy: suffix match pattern must be a string"},
		{`{"k":[{"cidr":1}]}`, "FilterPolicy: prefix match pattern must be a string"},
		{`{"k":[{"cidr":"bad-filter"}]}`, "FilterPolicy: Malformed CIDR, one '/' required"},
		{`{"k":[{"cidr":"bad-filter/64"}]}`, "FilterPolicy: Nonstandard IP address: bad-filter"},
		{`{"k":[{"cidr":"xx.11.xx/8"}]}`, "FilterPolicy: Nonstandard IP address: xx.11.xx"},
		{`{"k":[{"numeric":[]}]}`, "FilterPolicy: Invalid member in numeric match: ]"},
		{`{"k":[{"numeric":["op"]}]}`, "FilterPolicy: Unrecognized numeric range operator: op"},
		{`{"k":[{"numeric":[1,"<="]}]}`, "FilterPolicy: Invalid member in numeric match: 1"},
		{`{"k":[{"numeric":["=","000"]}]}`, "FilterPolicy: Value of equals must be numeric"},
		{`{"k":[{"numeric":[">="]}]}`, "FilterPolicy: Value of >= must be numeric"},
		{`{"k":[{"numeric":[">",20,"<="]}]}`, "FilterPolicy: Value of <= must be numeric"},
		{`{"k":[{"numeric":["<",100,">",10]}]}`, "FilterPolicy: Too many elements in numeric expression"},
		{`{"k":[{"numeric":[">=",1,">",2]}]}`, "FilterPolicy: Bad numeric range operator: >"},
		{`{"k":[{"numeric":[">",3,"<",1]}]}`, "FilterPolicy: Bottom must be less than top"},
		{`{"k":[{"numeric":[">",20,30]}]}`, "FilterPolicy: Bad value in numeric range: 30"},
		{`{"k":[{"numeric":[">",20,"<",30,"<",50]}]}`, "FilterPolicy: Too many terms in numeric range expression"},
		{`{"k":[{"exists":"yes"}]}`, "FilterPolicy: exists match pattern must be either true or false."},
		{`{"k":[{"anything-but":{"suffix":"x"}}]}`, "FilterPolicy: Unsupported anything-but pattern: suffix"},
		{`{"k":[{"anything-but":{"prefix":false}}]}`, "FilterPolicy: prefix match pattern must be a string"},
		{`{"a":["1"],"b":["1"],"c":["1"],"d":["1"],"e":["1"],"f":["1"]}`, "FilterPolicy: Filter policy can not have more than 5 keys"},
		{`{"a":[1,2,3,4,5,6],"b":[1,2,3,4,5,6],"c":[1,2,3,4,5]}`, "FilterPolicy: Filter policy is too complex"},
		{`{"a":{"b":["c"]}}`, "Filter policy scope MessageAttributes does not support nested filter policy"},
	}
	for _, tt := range tests {
		_, err := CompileFilterPolicy(tt.policy, false)
		require.Error(t, err, tt.policy)
		text, _, _ := strings.Cut(err.Error(), "\n")
		assert.Equal(t, tt.want, text, tt.policy)
	}
	_, err := CompileFilterPolicy(`{"a":[1,2,3],"b":[1,2,3,4],"c":[1,2],"d":[1,2,3]}`, false)
	assert.NoError(t, err, "3×4×2×3 = 72 combinations pass")
}

func TestMatchingAttributesAllocatesNothing(t *testing.T) {
	p, err := CompileFilterPolicy(`{"kind":["order",{"prefix":"inv"}],"amount":[{"numeric":[">",10,"<=",500]}],"tags":["urgent"],"region":[{"anything-but":["cn"]}],"ip":[{"cidr":"10.0.0.0/8"}]}`, false)
	require.NoError(t, err)
	attrs := map[string]Attr{"kind": {"String", "invoice"}, "amount": {"Number", "120.5"}, "tags": {"String.Array", `["low","urgent"]`},
		"region": {"String", "eu"}, "ip": {"String", "10.1.2.3"}}
	require.True(t, p.MatchAttributes(attrs))
	assert.Zero(t, testing.AllocsPerRun(100, func() { p.MatchAttributes(attrs) }))
	body, _ := ParseBody(`{"kind":"invoice","amount":120.5,"tags":["low","urgent"],"region":"eu","ip":"10.1.2.3"}`)
	bp, err := CompileFilterPolicy(`{"kind":["order",{"prefix":"inv"}],"amount":[{"numeric":[">",10]}],"tags":["urgent"]}`, true)
	require.NoError(t, err)
	require.True(t, bp.MatchBody(body))
	assert.Zero(t, testing.AllocsPerRun(100, func() { bp.MatchBody(body) }))
}

func BenchmarkMatchAttributes(b *testing.B) {
	p, _ := CompileFilterPolicy(`{"kind":["order",{"prefix":"inv"}],"amount":[{"numeric":[">",10,"<=",500]}],"tags":["urgent"],"region":[{"anything-but":["cn"]}],"ip":[{"cidr":"10.0.0.0/8"}]}`, false)
	attrs := map[string]Attr{"kind": {"String", "invoice"}, "amount": {"Number", "120.5"}, "tags": {"String.Array", `["low","urgent"]`},
		"region": {"String", "eu"}, "ip": {"String", "10.1.2.3"}}
	b.ReportAllocs()
	for b.Loop() {
		if !p.MatchAttributes(attrs) {
			b.Fatal("no match")
		}
	}
}

// SNS counts a nested policy's combinations with each array's nesting depth, and an $or's
// branches summed (the recordings of test_sub_filter_policy_nested_property_constraints and
// test_policy_complexity_with_or).
func TestCombinationsCountNestingDepth(t *testing.T) {
	for _, c := range []struct {
		policy string
		body   bool
		ok     bool
	}{
		{`{"key_a":{"key_b":{"key_c":["1","2","3","4"]}},"key_d":{"key_e":["1","2","3"]},"key_f":["1","2","3"]}`, true, false},                                                                 // 216
		{`{"source":["a","b","c","d"],"$or":[{"metricName":["1","2","3","4","5","6"]},{"metricType":["1","2","3","4"],"$or":[{"metricId":[1,2,3,4]},{"spaceId":[1,2,3,4]}]}]}`, false, false},  // 152
		{`{"$or":[{"metricName":["a","b","c"]},{"namespace":["a","b"]}],"detail":{"scope":["a","b"],"$or":[{"source":["a"]},{"type":["a","b","c"]}]}}`, true, false},                           // 160
		{`{"source":["a","b","c"],"$or":[{"metricName":["1","2","3","4","5","6"]},{"metricType":["1","2","3","4"],"$or":[{"metricId":[1,2,3,4]},{"spaceId":[1,2,3,4,5,6,7]}]}]}`, false, true}, // 150
		{`{"a":{"b":["1","2","3","4","5"]},"c":["1","2","3","4","5"],"d":["1","2","3"]}`, true, true},                                                                                          // 150
	} {
		_, err := CompileFilterPolicy(c.policy, c.body)
		if c.ok {
			assert.NoError(t, err, c.policy)
		} else {
			assert.EqualError(t, err, "FilterPolicy: Filter policy is too complex", c.policy)
		}
	}
}

// SNS's refusals end in the location its parser stood at when it found the fault: the
// policies and columns AWS recorded (test_sns_filter_policy.snapshot.json, 2024-05; the
// source is REDACTED as AWS has written it since, with Jackson 2.16).
func TestRefusalsEndInTheRecordedLocation(t *testing.T) {
	for _, c := range []struct {
		policy, message string
		line, column    int
	}{
		{"{\"key\":[[\"value\"]]}", "FilterPolicy: Match value must be String, number, true, false, or null", 1, 10},                          // test_validate_policy
		{"{\"key\":[{\"wrong-operator\":true}]}", "FilterPolicy: Unrecognized match type wrong-operator", 1, 31},                              // test_validate_policy
		{"{\"key\":[{\"suffix\":\"value\",\"prefix\":\"value2\"}]}", "FilterPolicy: Only one key allowed in match expression", 1, 37},         // test_validate_policy
		{"{\"key\":[]}", "FilterPolicy: Empty arrays are not allowed", 1, 10},                                                                 // test_validate_policy_string_operators
		{"{\"key\":[{\"suffix\":100}]}", "FilterPolicy: suffix match pattern must be a string", 1, 22},                                        // test_validate_policy_string_operators
		{"{\"key\":[{\"suffix\":null}]}", "FilterPolicy: suffix match pattern must be a string", 1, 23},                                       // test_validate_policy_string_operators
		{"{\"key\":{\"suffix\":\"value\"}}", "FilterPolicy: \"suffix\" must be an object or an array", 1, 19},                                 // test_validate_policy_string_operators
		{"{\"key\":[{\"suffix\":[]}]}", "FilterPolicy: suffix match pattern must be a string", 1, 20},                                         // test_validate_policy_string_operators
		{"{\"key\":[{\"suffix\":[\"test\",\"test2\"]}]}", "FilterPolicy: suffix match pattern must be a string", 1, 20},                       // test_validate_policy_string_operators
		{"{\"key\":{\"suffix\":\"value\",\"prefix\":\"value\"}}", "FilterPolicy: \"suffix\" must be an object or an array", 1, 19},            // test_validate_policy_string_operators
		{"{\"key\":{\"not-an-operator\":\"value\"}}", "FilterPolicy: \"not-an-operator\" must be an object or an array", 1, 28},               // test_validate_policy_string_operators
		{"{\"key\":[{\"cidr\":[\"bad-filter\"]}]}", "FilterPolicy: prefix match pattern must be a string", 1, 18},                             // test_validate_policy_string_operators
		{"{\"key\":[{\"numeric\":[]}]}", "FilterPolicy: Invalid member in numeric match: ]", 1, 22},                                           // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\"operator\"]}]}", "FilterPolicy: Unrecognized numeric range operator: operator", 1, 32},                    // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[1,\"<=\"]}]}", "FilterPolicy: Invalid member in numeric match: 1", 1, 22},                                   // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\"=\",\"000\"]}]}", "FilterPolicy: Value of equals must be numeric", 1, 26},                                 // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">=\"]}]}", "FilterPolicy: Value of >= must be numeric", 1, 26},                                            // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\"<\",100,\">\",10]}]}", "FilterPolicy: Too many elements in numeric expression", 1, 30},                    // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">=\",1,\">\",2]}]}", "FilterPolicy: Bad numeric range operator: >", 1, 31},                                // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">\",3,\"<\",1]}]}", "FilterPolicy: Bottom must be less than top", 1, 33},                                  // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">\",20,\"<=\"]}]}", "FilterPolicy: Value of <= must be numeric", 1, 33},                                   // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">\",20,30]}]}", "FilterPolicy: Bad value in numeric range: 30", 1, 30},                                    // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">\",20,\"test\"]}]}", "FilterPolicy: Bad numeric range operator: test", 1, 34},                            // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">\",\"20\",\"<\",\"30\"]}]}", "FilterPolicy: Value of > must be numeric", 1, 26},                          // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">\",20,\"<\",\"30\"]}]}", "FilterPolicy: Value of < must be numeric", 1, 33},                              // test_validate_policy_numeric_operator
		{"{\"key\":[{\"numeric\":[\">\",20,\"<\",30,\"<\",50]}]}", "FilterPolicy: Too many terms in numeric range expression", 1, 36},         // test_validate_policy_numeric_operator
		{"{\"key\":[{\"exists\":null}]}", "FilterPolicy: exists match pattern must be either true or false.", 1, 23},                          // test_validate_policy_exists_operator
		{"{\"key\":[{\"exists\":\"no\"}]}", "FilterPolicy: exists match pattern must be either true or false.", 1, 20},                        // test_validate_policy_exists_operator
		{"{\"key_a\":\"value_one\"}", "FilterPolicy: \"key_a\" must be an object or an array", 1, 11},                                         // test_sub_filter_policy_nested_property_constraints
		{"{\"key\":[{\"anything-but\":{\"wrong-operator\":null}}]}", "FilterPolicy: Unsupported anything-but pattern: wrong-operator", 1, 47}, // test_validate_policy_nested_anything_but_operator
		{"{\"key\":[{\"anything-but\":{\"suffix\":\"test\"}}]}", "FilterPolicy: Unsupported anything-but pattern: suffix", 1, 36},             // test_validate_policy_nested_anything_but_operator
		{"{\"key\":[{\"anything-but\":{\"exists\":false}}]}", "FilterPolicy: Unsupported anything-but pattern: exists", 1, 40},                // test_validate_policy_nested_anything_but_operator
		{"{\"key\":[{\"anything-but\":{\"prefix\":false}}]}", "FilterPolicy: prefix match pattern must be a string", 1, 40},                   // test_validate_policy_nested_anything_but_operator
	} {
		_, err := CompileFilterPolicy(c.policy, false)
		require.Error(t, err, c.policy)
		want := c.message + "\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: " +
			strconv.Itoa(c.line) + ", column: " + strconv.Itoa(c.column) + "]"
		assert.Equal(t, want, err.Error(), c.policy)
	}
}

// A text that is not JSON is refused with Jackson's own words and location, as AWS recorded
// them (test_subscribe_invalid_filter_policy, 2026-01; test_validate_set_sub_attributes,
// 2025-10), and the like for the other faults Jackson names.
func TestNotJSONIsRefusedAsJacksonRefusesIt(t *testing.T) {
	const loc = "\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: "
	for _, c := range []struct{ text, want string }{
		{"invalid-json", "Unrecognized token 'invalid': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')" + loc + "1, column: 8]"},
		{"{invalidjson}", "Unexpected character ('i' (code 105)): was expecting double-quote to start field name" + loc + "1, column: 2]"},
		{`{"a" 1}`, "Unexpected character ('1' (code 49)): was expecting a colon to separate field name and value" + loc + "1, column: 6]"},
		{`{"a":["b"] "c"}`, "Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries" + loc + "1, column: 12]"},
		{`{"a":["b" "c"]}`, "Unexpected character ('\"' (code 34)): was expecting comma to separate Array entries" + loc + "1, column: 11]"},
		{"{\n  \"a\": [tru]}", "Unrecognized token 'tru': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')" + loc + "2, column: 12]"},
		{`{"a":["b"]`, "Unexpected end-of-input: expected close marker for Object (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1])" + loc + "1, column: 11]"},
		{`{"a":["b`, "Unexpected end-of-input: was expecting closing quote for a string value" + loc + "1, column: 9]"},
		{`{"a":[01]}`, "Invalid numeric value: Leading zeroes not allowed" + loc + "1, column: 8]"},
		{`{"a":[1.]}`, "Unexpected character (']' (code 93)) in numeric value: Decimal point not followed by a digit" + loc + "1, column: 9]"},
		{`{"a":[,]}`, "Unexpected character (',' (code 44)): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')" + loc + "1, column: 7]"},
	} {
		_, err := CompileFilterPolicy(c.text, false)
		require.Error(t, err, c.text)
		assert.Equal(t, "FilterPolicy: failed to parse JSON. "+c.want, err.Error(), c.text)
		assert.Equal(t, c.want, JSONError(c.text), c.text)
	}
	assert.Empty(t, JSONError(`{"deadLetterTargetArn":"x"}`))
}
