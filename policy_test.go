package sqsfake

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	polQueueARN = "arn:aws:sqs:us-east-1:444455556666:orders"
	polAlice    = "arn:aws:iam::111122223333:user/alice"
	polSession  = "arn:aws:sts::111122223333:assumed-role/Producer/i-0abc"
)

// polDoc is a policy document with the given statements.
func polDoc(statements ...string) string {
	return `{"Version":"2012-10-17","Statement":[` + strings.Join(statements, ",") + `]}`
}

// polStatement is a statement for everyone on everything, with members replacing its
// defaults: a Not member replaces its positive one, and "" leaves a member out.
func polStatement(effect string, members map[string]string) string {
	m := map[string]string{"Principal": `"*"`, "Action": `"sqs:*"`, "Resource": `"*"`}
	for k, v := range members {
		if strings.HasPrefix(k, "Not") {
			delete(m, strings.TrimPrefix(k, "Not"))
		}
		m[k] = v
	}
	parts := []string{`"Effect":"` + effect + `"`}
	for _, k := range []string{"Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource", "Condition"} {
		if v, ok := m[k]; ok && v != "" {
			parts = append(parts, `"`+k+`":`+v)
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func polAllow(members map[string]string) string { return polStatement("Allow", members) }
func polDeny(members map[string]string) string  { return polStatement("Deny", members) }

// polRequest is alice in 111122223333 sending to a queue of 444455556666 over HTTPS.
func polRequest() accessRequest {
	return accessRequest{account: "111122223333", principal: polAlice, action: "SendMessage",
		resource: polQueueARN, secureTransport: true}
}

func TestPolicyEvaluate(t *testing.T) {
	type m = map[string]string
	session := func(r *accessRequest) { r.principal = polSession }
	cases := []struct {
		desc   string
		policy string // "" = no policy
		change func(*accessRequest)
		want   decision
	}{
		// Effect and statements
		{"no policy denies implicitly", "", nil, implicitDeny},
		{"no statements deny implicitly", polDoc(), nil, implicitDeny},
		{"an Allow allows", polDoc(polAllow(nil)), nil, allowed},
		{"a Deny denies explicitly", polDoc(polDeny(nil)), nil, explicitDeny},
		{"a Deny wins over an earlier Allow", polDoc(polAllow(nil), polDeny(nil)), nil, explicitDeny},
		{"a Deny wins over a later Allow", polDoc(polDeny(nil), polAllow(nil)), nil, explicitDeny},
		{"a Deny that does not apply leaves the Allow", polDoc(polDeny(m{"Action": `"sqs:PurgeQueue"`}), polAllow(nil)), nil, allowed},
		{"Statement may be one object", `{"Statement":` + polAllow(nil) + `}`, nil, allowed},
		{"Version 2008-10-17 is read the same", `{"Version":"2008-10-17","Statement":[` + polAllow(nil) + `]}`, nil, allowed},
		{"member names are matched as encoding/json does", `{"statement":[{"effect":"Allow","principal":"*","action":"sqs:*","resource":"*"}]}`, nil, allowed},

		// Principal
		{"Principal AWS * is everyone", polDoc(polAllow(m{"Principal": `{"AWS":"*"}`})), nil, allowed},
		{"Principal * admits an anonymous caller", polDoc(polAllow(nil)), func(r *accessRequest) { r.principal, r.account = "", "" }, allowed},
		{"an account id is every principal of the account", polDoc(polAllow(m{"Principal": `{"AWS":"111122223333"}`})), nil, allowed},
		{"an account id admits an assumed role of the account", polDoc(polAllow(m{"Principal": `{"AWS":"111122223333"}`})), session, allowed},
		{"an account id does not admit another account", polDoc(polAllow(m{"Principal": `{"AWS":"999988887777"}`})), nil, implicitDeny},
		{"an account root ARN is every principal of the account", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::111122223333:root"}`})), nil, allowed},
		{"an account root ARN does not admit another account", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::999988887777:root"}`})), nil, implicitDeny},
		{"a user ARN admits that user", polDoc(polAllow(m{"Principal": `{"AWS":"` + polAlice + `"}`})), nil, allowed},
		{"a user ARN does not admit another user of the account", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::111122223333:user/bob"}`})), nil, implicitDeny},
		{"a user ARN does not admit a user of that name in another case", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::111122223333:user/Alice"}`})), nil, implicitDeny},
		{"a role ARN admits the role's sessions", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::111122223333:role/Producer"}`})), session, allowed},
		{"a role ARN with a path admits the role's sessions", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::111122223333:role/team/Producer"}`})), session, allowed},
		{"a role ARN does not admit another role's sessions", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::111122223333:role/Consumer"}`})), session, implicitDeny},
		{"a role ARN does not admit the same role name in another account", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::999988887777:role/Producer"}`})), session, implicitDeny},
		{"a session ARN admits that session", polDoc(polAllow(m{"Principal": `{"AWS":"` + polSession + `"}`})), session, allowed},
		{"a session ARN does not admit another session", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:sts::111122223333:assumed-role/Producer/other"}`})), session, implicitDeny},
		{"a principal list admits any of its members", polDoc(polAllow(m{"Principal": `{"AWS":["999988887777","` + polAlice + `"]}`})), nil, allowed},
		{"a wildcard inside a principal ARN is not a wildcard", polDoc(polAllow(m{"Principal": `{"AWS":"arn:aws:iam::111122223333:user/*"}`})), nil, implicitDeny},
		{"a Service principal admits no direct caller", polDoc(polAllow(m{"Principal": `{"Service":"sns.amazonaws.com"}`})), nil, implicitDeny},
		{"a statement without Principal applies to no one", polDoc(polAllow(m{"Principal": ""})), nil, implicitDeny},
		{"NotPrincipal applies to everyone else", polDoc(polDeny(m{"NotPrincipal": `{"AWS":"arn:aws:iam::111122223333:user/bob"}`})), nil, explicitDeny},
		{"NotPrincipal does not apply to whom it names", polDoc(polDeny(m{"NotPrincipal": `{"AWS":"` + polAlice + `"}`})), nil, implicitDeny},

		// Action
		{"Action * is every action", polDoc(polAllow(m{"Action": `"*"`})), nil, allowed},
		{"Action sqs:Send* covers SendMessage", polDoc(polAllow(m{"Action": `"sqs:Send*"`})), nil, allowed},
		{"Action prefix and name are case-insensitive", polDoc(polAllow(m{"Action": `"SQS:SENDMESSAGE"`})), nil, allowed},
		{"Action ? matches one character", polDoc(polAllow(m{"Action": `"sqs:S?ndMessage"`})), nil, allowed},
		{"Action ? does not match two characters", polDoc(polAllow(m{"Action": `"sqs:S?dMessage"`})), nil, implicitDeny},
		{"Action * may be in the prefix", polDoc(polAllow(m{"Action": `"*:SendMessage"`})), nil, allowed},
		{"Action of another action does not apply", polDoc(polAllow(m{"Action": `"sqs:ReceiveMessage"`})), nil, implicitDeny},
		{"Action of another service does not apply", polDoc(polAllow(m{"Action": `"sns:*"`})), nil, implicitDeny},
		{"Action sqs:SendMessageBatch never authorises", polDoc(polAllow(m{"Action": `"sqs:SendMessageBatch"`})), nil, implicitDeny},
		{"Action sqs:SendMessage* covers SendMessage", polDoc(polAllow(m{"Action": `"sqs:SendMessage*"`})), nil, allowed},
		{"Action list applies when any member does", polDoc(polAllow(m{"Action": `["sqs:ReceiveMessage","sqs:SendMessage"]`})), nil, allowed},
		{"NotAction applies to the other actions", polDoc(polAllow(m{"NotAction": `"sqs:ReceiveMessage"`})), nil, allowed},
		{"NotAction does not apply to the actions it names", polDoc(polDeny(m{"NotAction": `["sqs:Send*"]`})), nil, implicitDeny},

		// Resource
		{"Resource the queue ARN", polDoc(polAllow(m{"Resource": `"` + polQueueARN + `"`})), nil, allowed},
		{"Resource of another queue does not apply", polDoc(polAllow(m{"Resource": `"arn:aws:sqs:us-east-1:444455556666:other"`})), nil, implicitDeny},
		{"Resource wildcards in region and name", polDoc(polAllow(m{"Resource": `"arn:aws:sqs:*:444455556666:*"`})), nil, allowed},
		{"Resource ? matches one character", polDoc(polAllow(m{"Resource": `"arn:aws:sqs:us-east-?:444455556666:orders"`})), nil, allowed},
		{"Resource * may span colons", polDoc(polAllow(m{"Resource": `"arn:aws:sqs:*"`})), nil, allowed},
		{"Resource is case-sensitive", polDoc(polAllow(m{"Resource": `"arn:aws:sqs:us-east-1:444455556666:Orders"`})), nil, implicitDeny},
		{"Resource list applies when any member does", polDoc(polAllow(m{"Resource": `["arn:aws:sqs:us-east-1:444455556666:other","` + polQueueARN + `"]`})), nil, allowed},
		{"NotResource applies to other queues", polDoc(polAllow(m{"NotResource": `"arn:aws:sqs:us-east-1:444455556666:other"`})), nil, allowed},
		{"NotResource does not apply to the queue it names", polDoc(polDeny(m{"NotResource": `"` + polQueueARN + `"`})), nil, implicitDeny},

		// Condition operators, present keys
		{"StringEquals matches the value", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:SourceAccount":"123456789012"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, allowed},
		{"StringEquals values are alternatives", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:SourceAccount":["1","123456789012"]}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, allowed},
		{"StringEquals does not match another value", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:SourceAccount":"999999999999"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, implicitDeny},
		{"StringNotEquals holds for another value", polDoc(polDeny(m{"Condition": `{"StringNotEquals":{"aws:SourceAccount":"999999999999"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, explicitDeny},
		{"StringNotEquals fails when any value matches", polDoc(polDeny(m{"Condition": `{"StringNotEquals":{"aws:SourceAccount":["9","123456789012"]}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, implicitDeny},
		{"StringEquals is case-sensitive", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:PrincipalOrgID":"O-ABC"}}`})),
			func(r *accessRequest) { r.orgID = "o-abc" }, implicitDeny},
		{"StringEqualsIgnoreCase ignores case", polDoc(polAllow(m{"Condition": `{"StringEqualsIgnoreCase":{"aws:PrincipalOrgID":"O-ABC"}}`})),
			func(r *accessRequest) { r.orgID = "o-abc" }, allowed},
		{"StringNotEqualsIgnoreCase ignores case", polDoc(polDeny(m{"Condition": `{"StringNotEqualsIgnoreCase":{"aws:PrincipalOrgID":"O-ABC"}}`})),
			func(r *accessRequest) { r.orgID = "o-abc" }, implicitDeny},
		{"StringLike takes wildcards", polDoc(polAllow(m{"Condition": `{"StringLike":{"aws:SourceArn":"arn:aws:sns:*:123456789012:ord?rs-*"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:eu-west-1:123456789012:orders-topic" }, allowed},
		{"StringNotLike holds for a value the patterns miss", polDoc(polDeny(m{"Condition": `{"StringNotLike":{"aws:SourceArn":"arn:aws:sns:*:123456789012:*"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:eu-west-1:999999999999:t" }, explicitDeny},
		{"ArnEquals matches the ARN", polDoc(polAllow(m{"Condition": `{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:t"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:us-east-1:123456789012:t" }, allowed},
		{"ArnLike takes wildcards per component", polDoc(polAllow(m{"Condition": `{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*:123456789012:*"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:us-east-1:123456789012:t" }, allowed},
		{"ArnLike * does not span components", polDoc(polAllow(m{"Condition": `{"ArnLike":{"aws:SourceArn":"arn:aws:sns:*"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:us-east-1:123456789012:t" }, implicitDeny},
		{"ArnLike resource component keeps its colons", polDoc(polAllow(m{"Condition": `{"ArnLike":{"aws:SourceArn":"arn:aws:events:us-east-1:123456789012:rule/*"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:events:us-east-1:123456789012:rule/a:b" }, allowed},
		{"ArnNotEquals holds for another ARN", polDoc(polDeny(m{"Condition": `{"ArnNotEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:t"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:us-east-1:123456789012:u" }, explicitDeny},
		{"ArnNotLike fails for a matching ARN", polDoc(polDeny(m{"Condition": `{"ArnNotLike":{"aws:SourceArn":"arn:aws:sns:*:123456789012:*"}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:us-east-1:123456789012:u" }, implicitDeny},
		{"Bool aws:SecureTransport false denies plain HTTP", polDoc(polAllow(nil), polDeny(m{"Condition": `{"Bool":{"aws:SecureTransport":"false"}}`})),
			func(r *accessRequest) { r.secureTransport = false }, explicitDeny},
		{"Bool aws:SecureTransport false spares HTTPS", polDoc(polAllow(nil), polDeny(m{"Condition": `{"Bool":{"aws:SecureTransport":"false"}}`})), nil, allowed},
		{"Bool takes a JSON boolean", polDoc(polDeny(m{"Condition": `{"Bool":{"aws:SecureTransport":false}}`})),
			func(r *accessRequest) { r.secureTransport = false }, explicitDeny},
		{"Bool ignores case", polDoc(polAllow(m{"Condition": `{"Bool":{"aws:SecureTransport":"TRUE"}}`})), nil, allowed},
		{"IfExists applies the operator to a present key", polDoc(polAllow(m{"Condition": `{"StringEqualsIfExists":{"aws:SourceAccount":"999999999999"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, implicitDeny},
		{"aws:PrincipalOrgID admits a caller of the organization", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:PrincipalOrgID":"o-abc"}}`})),
			func(r *accessRequest) { r.orgID = "o-abc" }, allowed},
		{"aws:PrincipalAccount is the caller's account", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:PrincipalAccount":"111122223333"}}`})), nil, allowed},
		{"aws:PrincipalArn is the caller's ARN", polDoc(polAllow(m{"Condition": `{"ArnEquals":{"aws:PrincipalArn":"` + polAlice + `"}}`})), nil, allowed},
		{"aws:PrincipalArn of a session is its role", polDoc(polAllow(m{"Condition": `{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::111122223333:role/Prod*"}}`})), session, allowed},
		{"aws:PrincipalArn compared ignoring case", polDoc(polAllow(m{"Condition": `{"StringEqualsIgnoreCase":{"aws:PrincipalArn":"ARN:AWS:IAM::111122223333:ROLE/PRODUCER"}}`})), session, allowed},
		{"aws:PrincipalArn StringEquals of a session is not the session ARN", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:PrincipalArn":"` + polSession + `"}}`})), session, implicitDeny},
		{"condition keys are case-insensitive", polDoc(polAllow(m{"Condition": `{"StringEquals":{"AWS:SOURCEACCOUNT":"123456789012"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, allowed},
		{"condition operators are case-insensitive", polDoc(polAllow(m{"Condition": `{"stringequals":{"aws:SourceAccount":"123456789012"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, allowed},
		{"all keys of an operator must hold", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:SourceAccount":"123456789012","aws:PrincipalAccount":"999999999999"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, implicitDeny},
		{"all operators must hold", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:SourceAccount":"123456789012"},"Bool":{"aws:SecureTransport":"false"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, implicitDeny},
		{"all operators holding allow", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:SourceAccount":"123456789012"},"Bool":{"aws:SecureTransport":"true"}}`})),
			func(r *accessRequest) { r.sourceAccount = "123456789012" }, allowed},

		// Condition operators, absent keys
		{"an Allow on aws:SourceArn does not admit a direct caller", polDoc(polAllow(m{"Condition": `{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:t"}}`})), nil, implicitDeny},
		{"a Deny on ArnNotEquals aws:SourceArn refuses a direct caller", polDoc(polAllow(nil), polDeny(m{"Condition": `{"ArnNotEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:t"}}`})), nil, explicitDeny},
		{"StringNotEquals holds for an absent key", polDoc(polDeny(m{"Condition": `{"StringNotEquals":{"aws:SourceAccount":"123456789012"}}`})), nil, explicitDeny},
		{"StringNotLike holds for an absent key", polDoc(polDeny(m{"Condition": `{"StringNotLike":{"aws:SourceArn":"*"}}`})), nil, explicitDeny},
		{"IfExists holds for an absent key", polDoc(polAllow(m{"Condition": `{"StringEqualsIfExists":{"aws:SourceAccount":"123456789012"}}`})), nil, allowed},
		{"Null true holds for an absent key", polDoc(polAllow(m{"Condition": `{"Null":{"aws:SourceArn":"true"}}`})), nil, allowed},
		{"Null false fails for an absent key", polDoc(polAllow(m{"Condition": `{"Null":{"aws:SourceArn":"false"}}`})), nil, implicitDeny},
		{"Null false holds for a present key", polDoc(polAllow(m{"Condition": `{"Null":{"aws:SourceArn":false}}`})),
			func(r *accessRequest) { r.sourceArn = "arn:aws:sns:us-east-1:123456789012:t" }, allowed},
		{"aws:PrincipalOrgID is absent without an organization", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:PrincipalOrgID":"o-abc"}}`})), nil, implicitDeny},
		{"an unknown key is absent", polDoc(polAllow(m{"Condition": `{"StringEquals":{"aws:SourceVpce":"vpce-1"}}`})), nil, implicitDeny},
		{"an unknown key is absent for negated operators too", polDoc(polDeny(m{"Condition": `{"StringNotEquals":{"aws:SourceVpce":"vpce-1"}}`})), nil, explicitDeny},
		{"ForAllValues holds for an absent key", polDoc(polAllow(m{"Condition": `{"ForAllValues:StringEquals":{"aws:SourceAccount":"1"}}`})), nil, allowed},
		{"ForAnyValue fails for an absent key", polDoc(polAllow(m{"Condition": `{"ForAnyValue:StringEquals":{"aws:SourceAccount":"1"}}`})), nil, implicitDeny},
		{"IpAddress has no key to match", polDoc(polAllow(m{"Condition": `{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}`})), nil, implicitDeny},
		{"NotIpAddress holds with no key", polDoc(polDeny(m{"Condition": `{"NotIpAddress":{"aws:SourceIp":"10.0.0.0/8"}}`})), nil, explicitDeny},
		{"NumericLessThanIfExists holds with no key", polDoc(polAllow(m{"Condition": `{"NumericLessThanIfExists":{"aws:MultiFactorAuthAge":"3600"}}`})), nil, allowed},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			var p *queuePolicy
			if tc.policy != "" {
				var err error
				p, err = compilePolicy(tc.policy)
				require.NoError(t, err, tc.policy)
			}
			r := polRequest()
			if tc.change != nil {
				tc.change(&r)
			}
			assert.Equal(t, tc.want, p.evaluate(&r), tc.policy)
		})
	}
}

func TestWildcardMatch(t *testing.T) {
	cases := []struct {
		desc, pattern, s string
		fold, want       bool
	}{
		{"literal", "abc", "abc", false, true},
		{"literal differs", "abc", "abd", false, false},
		{"shorter subject", "abc", "ab", false, false},
		{"longer subject", "abc", "abcd", false, false},
		{"star alone matches empty", "*", "", false, true},
		{"star matches a run", "a*c", "abbbc", false, true},
		{"star backtracks", "a*bc", "abcbcbc", false, true},
		{"two stars", "*b*d", "abcd", false, true},
		{"two stars miss", "*b*e", "abcd", false, false},
		{"question mark needs a character", "ab?", "ab", false, false},
		{"question mark takes one multi-byte character", "caf?", "café", false, true},
		{"question mark takes one byte of a cut sequence", "a?b", "a\xc3b", false, true},
		{"fold lowers the subject", "sqs:sendmessage", "sqs:SendMessage", true, true},
		{"no fold is case-sensitive", "sqs:sendmessage", "sqs:SendMessage", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			assert.Equal(t, tc.want, wildcardMatch(tc.pattern, tc.s, tc.fold), "string")
			assert.Equal(t, tc.want, wildcardMatch(tc.pattern, []byte(tc.s), tc.fold), "bytes")
		})
	}
}

func TestCompilePolicyRefusesMalformedDocuments(t *testing.T) {
	ok := polAllow(nil)
	cases := []struct{ desc, doc string }{
		{"not JSON", `allow everyone`},
		{"an array", `[` + ok + `]`},
		{"null", `null`},
		{"a string", `"x"`},
		{"trailing text", polDoc(ok) + ` {}`},
		{"no Statement", `{"Version":"2012-10-17"}`},
		{"Statement null", `{"Statement":null}`},
		{"Statement a string", `{"Statement":"x"}`},
		{"Statement a number", `{"Statement":5}`},
		{"a statement null", `{"Statement":[null]}`},
		{"a statement a string", `{"Statement":["x"]}`},
		{"Version unknown", `{"Version":"2012-10-18","Statement":[` + ok + `]}`},
		{"Version a number", `{"Version":2012,"Statement":[` + ok + `]}`},
		{"Id a number", `{"Id":1,"Statement":[` + ok + `]}`},
		{"Sid a number", polDoc(`{"Sid":1,"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}`)},
		{"Effect missing", polDoc(`{"Principal":"*","Action":"sqs:*","Resource":"*"}`)},
		{"Effect other than Allow and Deny", polDoc(polStatement("Permit", nil))},
		{"Effect in lower case", polDoc(polStatement("allow", nil))},
		{"Effect a list", polDoc(`{"Effect":["Allow"],"Principal":"*","Action":"sqs:*","Resource":"*"}`)},
		{"Action and NotAction both missing", polDoc(`{"Effect":"Allow","Principal":"*","Resource":"*"}`)},
		{"Action and NotAction both present", polDoc(`{"Effect":"Allow","Principal":"*","Action":"sqs:*","NotAction":"sqs:PurgeQueue","Resource":"*"}`)},
		{"Action a number", polDoc(polAllow(map[string]string{"Action": `5`}))},
		{"Action an object", polDoc(polAllow(map[string]string{"Action": `{"a":"b"}`}))},
		{"Action list with null", polDoc(polAllow(map[string]string{"Action": `["sqs:*",null]`}))},
		{"Resource and NotResource both missing", polDoc(`{"Effect":"Allow","Principal":"*","Action":"sqs:*"}`)},
		{"Resource and NotResource both present", polDoc(`{"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*","NotResource":"x"}`)},
		{"Resource null", polDoc(polAllow(map[string]string{"Resource": `null`}))},
		{"Principal and NotPrincipal both present", polDoc(`{"Effect":"Allow","Principal":"*","NotPrincipal":{"AWS":"111122223333"},"Action":"sqs:*","Resource":"*"}`)},
		{"Principal a string other than *", polDoc(polAllow(map[string]string{"Principal": `"111122223333"`}))},
		{"Principal of an unknown type", polDoc(polAllow(map[string]string{"Principal": `{"User":"alice"}`}))},
		{"Principal AWS an object", polDoc(polAllow(map[string]string{"Principal": `{"AWS":{"a":"b"}}`}))},
		{"Principal a list", polDoc(polAllow(map[string]string{"Principal": `["*"]`}))},
		{"Condition a list", polDoc(polAllow(map[string]string{"Condition": `[]`}))},
		{"Condition operator block a string", polDoc(polAllow(map[string]string{"Condition": `{"StringEquals":"x"}`}))},
		{"Condition operator unknown", polDoc(polAllow(map[string]string{"Condition": `{"StringEqualz":{"aws:SourceAccount":"1"}}`}))},
		{"Condition without an operator", polDoc(polAllow(map[string]string{"Condition": `{"aws:SourceAccount":"1"}`}))},
		{"Condition NullIfExists", polDoc(polAllow(map[string]string{"Condition": `{"NullIfExists":{"aws:SourceArn":"true"}}`}))},
		{"Condition value an object", polDoc(polAllow(map[string]string{"Condition": `{"StringEquals":{"aws:SourceAccount":{"a":1}}}`}))},
		{"Condition value null", polDoc(polAllow(map[string]string{"Condition": `{"StringEquals":{"aws:SourceAccount":null}}`}))},
		{"Action an empty list", polDoc(polAllow(map[string]string{"Action": `[]`}))},
		{"NotAction an empty list", polDoc(polAllow(map[string]string{"NotAction": `[]`}))},
		{"Resource an empty list", polDoc(polAllow(map[string]string{"Resource": `[]`}))},
		{"NotResource an empty list", polDoc(polAllow(map[string]string{"NotResource": `[]`}))},
		{"Principal AWS an empty list", polDoc(polAllow(map[string]string{"Principal": `{"AWS":[]}`}))},
		{"Principal Service an empty list", polDoc(polAllow(map[string]string{"Principal": `{"Service":[]}`}))},
		{"NotPrincipal AWS an empty list", polDoc(polAllow(map[string]string{"NotPrincipal": `{"AWS":[]}`}))},
		{"Principal AWS a name", polDoc(polAllow(map[string]string{"Principal": `{"AWS":"bob"}`}))},
		{"Principal AWS a name among valid ones", polDoc(polAllow(map[string]string{"Principal": `{"AWS":["111122223333","bob"]}`}))},
		{"Principal AWS an account id of 11 digits", polDoc(polAllow(map[string]string{"Principal": `{"AWS":"11112222333"}`}))},
		{"Principal AWS an ARN without a resource", polDoc(polAllow(map[string]string{"Principal": `{"AWS":"arn:aws:iam::111122223333:"}`}))},
		{"Principal AWS an ARN of too few parts", polDoc(polAllow(map[string]string{"Principal": `{"AWS":"arn:aws:iam:111122223333"}`}))},
		{"Principal AWS empty", polDoc(polAllow(map[string]string{"Principal": `{"AWS":""}`}))},
		{"NotPrincipal AWS a name", polDoc(polAllow(map[string]string{"NotPrincipal": `{"AWS":"bob"}`}))},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			p, err := compilePolicy(tc.doc)
			assert.ErrorIs(t, err, errBadPolicy, tc.doc)
			assert.Nil(t, p)
		})
	}
}

func TestCompilePolicyAcceptsWhatSQSAccepts(t *testing.T) {
	cases := []struct{ desc, doc string }{
		{"no statements", `{"Version":"2012-10-17","Statement":[]}`},
		{"no Version", `{"Statement":[]}`},
		{"Version 2008-10-17 and an Id", `{"Version":"2008-10-17","Id":"x","Statement":[]}`},
		{"the document AddPermission writes", `{"Version":"2008-10-17","Id":"arn:aws:sqs:us-east-1:123456789012:q/SQSDefaultPolicy","Statement":[{"Sid":"L","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::111122223333:root","arn:aws:iam::444455556666:root"]},"Action":["SQS:SendMessage","SQS:ReceiveMessage"],"Resource":"arn:aws:sqs:us-east-1:123456789012:q"}]}`},
		{"SNS fan-out with a condition", polDoc(`{"Sid":"sns","Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + polQueueARN + `","Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:444455556666:t"}}}`)},
		{"batch actions", polDoc(polAllow(map[string]string{"Action": `["sqs:SendMessageBatch","sqs:DeleteMessageBatch"]`}))},
		{"an action AWS does not have", polDoc(polAllow(map[string]string{"Action": `"sqs:Frobnicate"`}))},
		{"no Principal", polDoc(polAllow(map[string]string{"Principal": ""}))},
		{"principals of every AWS form", polDoc(polAllow(map[string]string{"Principal": `{"AWS":["*","111122223333","arn:aws:iam::111122223333:root","arn:aws-cn:iam::111122223333:user/a/b","arn:aws:sts::111122223333:assumed-role/R/s","arn:aws:iam::111122223333:user/*"]}`}))},
		{"a Resource list", polDoc(polAllow(map[string]string{"Resource": `["a","b"]`}))},
		{"unknown members", `{"Statement":[],"Extra":1}`},
		{"condition values as JSON booleans and numbers", polDoc(polAllow(map[string]string{"Condition": `{"Bool":{"aws:SecureTransport":false},"NumericLessThan":{"aws:MultiFactorAuthAge":3600}}`}))},
		{"ForAnyValue and IfExists forms", polDoc(polAllow(map[string]string{"Condition": `{"ForAnyValue:StringLikeIfExists":{"aws:SourceArn":["a*"]}}`}))},
		{"indented", "{\n  \"Statement\": [\n    " + polAllow(nil) + "\n  ]\n}"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			p, err := compilePolicy(tc.doc)
			require.NoError(t, err, tc.doc)
			assert.NotNil(t, p)

			// AddPermission and RemovePermission rewrite it into documents that compile too.
			f := New()
			u := qlCreate(t, f, "q", map[string]string{"Policy": tc.doc})
			qlAddPermission(t, f, u, "Added", []string{"111122223333"}, []string{"SendMessage"})
			assert.NotNil(t, polRules(t, f, u), "after AddPermission")
			qlRemovePermission(t, f, u, "Added")
			if text, ok := qlPolicy(t, f, u); ok {
				assert.NotNil(t, polRules(t, f, u), "after RemovePermission: %s", text)
			}
		})
	}
}

func TestAuthorize(t *testing.T) {
	const owner = "444455556666"
	allowAll := polDoc(polAllow(nil))
	denyAll := polDoc(polDeny(nil))
	cases := []struct {
		desc    string
		policy  string
		account string
		action  string
		want    decision
	}{
		{"the owner may act without a policy", "", owner, "SendMessage", allowed},
		{"the owner may act when no statement applies", polDoc(polAllow(map[string]string{"Principal": `{"AWS":"999988887777"}`})), owner, "SendMessage", allowed},
		{"the owner is refused by an explicit deny", denyAll, owner, "SendMessage", explicitDeny},
		{"the owner may use owner-only actions", "", owner, "SetQueueAttributes", allowed},
		{"another account is refused without a policy", "", "111122223333", "SendMessage", implicitDeny},
		{"another account is refused when no statement allows", polDoc(polAllow(map[string]string{"Action": `"sqs:ReceiveMessage"`})), "111122223333", "SendMessage", implicitDeny},
		{"another account may act when allowed", allowAll, "111122223333", "SendMessage", allowed},
		{"another account is refused by an explicit deny", polDoc(polAllow(nil), polDeny(nil)), "111122223333", "SendMessage", explicitDeny},
		{"an owner-only action is refused to another account despite sqs:*", allowAll, "111122223333", "DeleteQueue", implicitDeny},
		{"SetQueueAttributes cannot be shared", allowAll, "111122223333", "SetQueueAttributes", implicitDeny},
		{"AddPermission cannot be shared", allowAll, "111122223333", "AddPermission", implicitDeny},
		{"TagQueue cannot be shared", allowAll, "111122223333", "TagQueue", implicitDeny},
		{"an explicit deny of an owner-only action is reported as explicit", denyAll, "111122223333", "DeleteQueue", explicitDeny},
		{"GetQueueUrl can be shared", allowAll, "111122223333", "GetQueueUrl", allowed},
		{"ReceiveMessage can be shared", allowAll, "111122223333", "ReceiveMessage", allowed},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			var p *queuePolicy
			if tc.policy != "" {
				var err error
				p, err = compilePolicy(tc.policy)
				require.NoError(t, err)
			}
			r := polRequest()
			r.account, r.action = tc.account, tc.action
			r.principal = "arn:aws:iam::" + tc.account + ":user/alice"
			assert.Equal(t, tc.want, authorize(p, owner, &r))
		})
	}
}

func TestAccessDeniedMessage(t *testing.T) {
	cases := []struct {
		desc      string
		principal string
		action    string
		d         decision
		want      string
	}{
		{"implicit deny names the action in lower case twice", polAlice, "SendMessage", implicitDeny,
			"User: " + polAlice + " is not authorized to perform: sqs:sendmessage on resource: " + polQueueARN +
				" because no resource-based policy allows the sqs:sendmessage action"},
		{"explicit deny", polSession, "ReceiveMessage", explicitDeny,
			"User: " + polSession + " is not authorized to perform: sqs:receivemessage on resource: " + polQueueARN +
				" with an explicit deny in a resource-based policy"},
		{"an anonymous caller", "", "GetQueueAttributes", implicitDeny,
			"User: anonymous is not authorized to perform: sqs:getqueueattributes on resource: " + polQueueARN +
				" because no resource-based policy allows the sqs:getqueueattributes action"},
		{"an allowed call has no message", polAlice, "SendMessage", allowed, ""},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			r := polRequest()
			r.principal, r.action = tc.principal, tc.action
			assert.Equal(t, tc.want, accessDeniedMessage(&r, tc.d))
		})
	}
}

// polRules returns the compiled policy of the queue at url.
func polRules(t *testing.T, f *Fake, url string) *queuePolicy {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.lookupURL(f.homeActor, url)
	require.Nil(t, err)
	return q.cfg.policyRules
}

func TestMalformedPolicyIsRefusedAndChangesNothing(t *testing.T) {
	good := polDoc(polAllow(nil))
	bad := []string{
		`{"Version":"2012-10-17"}`,
		polDoc(`{"Effect":"Allow","Principal":"*","Resource":"*"}`),
		polDoc(polStatement("Maybe", nil)),
		`{"Statement":[` + polAllow(nil) + `],"Version":"1"}`,
	}
	for _, doc := range bad {
		t.Run(doc, func(t *testing.T) {
			f := New()
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"Policy": doc}})
			qlRequireError(t, err, "CreateQueue", qlInvalidValueFor("Policy"))
			_, lookupErr := f.Queue("q")
			assert.ErrorIs(t, lookupErr, ErrNoQueue, "no queue is created")

			u := qlCreate(t, f, "q", map[string]string{"Policy": good})
			before := qlState(t, f)
			_, err = f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"Policy": doc}})
			qlRequireError(t, err, "SetQueueAttributes", qlInvalidValueFor("Policy"))
			assert.Equal(t, before, qlState(t, f))
			r := polRequest()
			assert.Equal(t, allowed, polRules(t, f, u).evaluate(&r), "the compiled policy is the one before")
		})
	}
}

func TestPolicyCompiledFormFollowsEveryEdit(t *testing.T) {
	f := New()
	// Deny SendMessage only: a policy that denies everything would lock the owner out of
	// the SetQueueAttributes calls below, as it does on SQS.
	u := qlCreate(t, f, "q", map[string]string{"Policy": polDoc(polDeny(map[string]string{"Action": `"sqs:SendMessage"`}))})
	r := polRequest()
	r.resource = qlARN("q")
	assert.Equal(t, explicitDeny, polRules(t, f, u).evaluate(&r), "CreateQueue compiles")

	qlSetAttrs(t, f, u, map[string]string{"Policy": polDoc()})
	assert.Equal(t, implicitDeny, polRules(t, f, u).evaluate(&r), "SetQueueAttributes compiles")

	qlAddPermission(t, f, u, "L", []string{"111122223333"}, []string{"SendMessage"})
	assert.Equal(t, allowed, polRules(t, f, u).evaluate(&r), "AddPermission grants the account")
	r.action = "ReceiveMessage"
	assert.Equal(t, implicitDeny, polRules(t, f, u).evaluate(&r), "AddPermission grants only its actions")
	r.action = "SendMessage"

	qlRemovePermission(t, f, u, "L")
	assert.Equal(t, implicitDeny, polRules(t, f, u).evaluate(&r), "RemovePermission revokes")

	qlAddPermission(t, f, u, "M", []string{"111122223333"}, []string{"*"})
	qlSetAttrs(t, f, u, map[string]string{"Policy": ""})
	assert.Nil(t, polRules(t, f, u), "an empty Policy removes it")
	qlAddPermission(t, f, u, "N", []string{"111122223333"}, []string{"SendMessage"})
	qlRemovePermission(t, f, u, "N")
	assert.Nil(t, polRules(t, f, u), "removing the last statement removes the policy")
}

// polBenchPolicy is a realistic 10-statement policy: the request of the benchmark is allowed
// by the last statement only, after every other statement has been looked at.
var polBenchPolicy = polDoc(
	`{"Sid":"DenyPlainHTTP","Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"`+polQueueARN+`","Condition":{"Bool":{"aws:SecureTransport":"false"}}}`,
	`{"Sid":"SNS","Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"`+polQueueARN+`"}`,
	`{"Sid":"Consumers","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::222233334444:role/Consumer","arn:aws:iam::222233334444:role/Auditor","555566667777"]},"Action":["sqs:ReceiveMessage","sqs:DeleteMessage","sqs:ChangeMessageVisibility"],"Resource":"`+polQueueARN+`"}`,
	`{"Sid":"NoPurge","Effect":"Deny","Principal":{"AWS":"*"},"Action":["sqs:PurgeQueue","sqs:DeleteQueue"],"Resource":"arn:aws:sqs:*:444455556666:*"}`,
	`{"Sid":"Ops","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::888899990000:root"},"Action":"sqs:Get*","Resource":"*"}`,
	`{"Sid":"Other","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::111122223333:user/bob","arn:aws:iam::111122223333:user/carol"]},"Action":"sqs:SendMessage","Resource":"`+polQueueARN+`"}`,
	`{"Sid":"Archive","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:us-east-1:444455556666:archive-?"}`,
	`{"Sid":"DenyOthers","Effect":"Deny","NotPrincipal":{"AWS":["111122223333","222233334444","555566667777","888899990000"]},"Action":"sqs:*","Resource":"*"}`,
	`{"Sid":"Tags","Effect":"Allow","Principal":{"AWS":"111122223333"},"Action":"sqs:ListQueueTags","Resource":"`+polQueueARN+`"}`,
	`{"Sid":"Producer","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::111122223333:role/Other","arn:aws:iam::111122223333:role/Producer"]},"Action":["sqs:Send*","sqs:GetQueueUrl"],"Resource":"arn:aws:sqs:us-east-1:444455556666:ord*"}`,
)

func BenchmarkPolicyEvaluate(b *testing.B) {
	p, err := compilePolicy(polBenchPolicy)
	if err != nil {
		b.Fatal(err)
	}
	r := polRequest()
	r.principal = polSession
	if got := p.evaluate(&r); got != allowed {
		b.Fatalf("the benchmark request is %v, want allowed", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.evaluate(&r)
	}
}

func TestPolicyEvaluateDoesNotAllocate(t *testing.T) {
	p, err := compilePolicy(polDoc(polBenchPolicy[len(`{"Version":"2012-10-17","Statement":[`):len(polBenchPolicy)-2],
		polAllow(map[string]string{"Condition": `{"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/*"}}`})))
	require.NoError(t, err)
	r := polRequest()
	r.principal = polSession
	assert.Zero(t, testing.AllocsPerRun(100, func() { p.evaluate(&r) }))
}

// FuzzPolicyEvaluate compiles arbitrary documents; one that compiles evaluates any request
// without panicking, and to the same decision every time.
func FuzzPolicyEvaluate(f *testing.F) {
	f.Add(polBenchPolicy, polSession, "SendMessage", polQueueARN, "")
	f.Add(polDoc(polAllow(map[string]string{"Condition": `{"ArnLike":{"aws:PrincipalArn":"arn:*:iam::*:role/?*"}}`})), "arn:aws:sts::1:assumed-role/r/s", "sendmessage", "*", "arn:a:b:c:d:e")
	f.Add(`{"Statement":{"Effect":"Deny","NotPrincipal":{"AWS":"111122223333"},"NotAction":"*?","NotResource":"\u00e9?"}}`, "", "", "é", "")
	f.Fuzz(func(t *testing.T, doc, principal, action, resource, sourceArn string) {
		p, err := compilePolicy(doc)
		if err != nil {
			return
		}
		r := accessRequest{account: "111122223333", principal: principal, action: action, resource: resource,
			sourceArn: sourceArn, sourceAccount: sourceArn, orgID: action}
		d := p.evaluate(&r)
		if again := p.evaluate(&r); again != d {
			t.Fatalf("evaluated %v then %v", d, again)
		}
		if a := authorize(p, "444455556666", &r); a == allowed && d != allowed {
			t.Fatalf("another account allowed by a policy that decided %v", d)
		}
	})
}

// polStatements is n copies of statement.
func polStatements(n int, statement string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = statement
	}
	return out
}

// polList is a JSON array of n strings made by item.
func polList(n int, item func(i int) string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = `"` + item(i) + `"`
	}
	return "[" + strings.Join(items, ",") + "]"
}

// polPadded is polDoc(statements...) padded with spaces inside the object to size bytes.
func polPadded(size int, statements ...string) string {
	doc := polDoc(statements...)
	return "{" + strings.Repeat(" ", size-len(doc)) + doc[1:]
}

func polAccount(i int) string { return fmt.Sprintf("%012d", 100000000000+i) }

func TestPolicyQuotasAnswerOverLimit(t *testing.T) {
	type m = map[string]string
	withPrincipals := func(n int) string {
		return polAllow(m{"Principal": `{"AWS":` + polList(n, polAccount) + `}`})
	}
	withConditions := func(n int) string {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf(`"aws:k%d":"v"`, i)
		}
		return polAllow(m{"Condition": `{"StringEquals":{` + strings.Join(keys, ",") + `}}`})
	}
	actions := func(n int) string {
		return polList(n, func(i int) string { return fmt.Sprintf("sqs:Action%d", i) })
	}
	cases := []struct {
		desc string
		doc  string
		want *qlErr // nil: taken
	}{
		{"8,192 bytes", polPadded(8192, polAllow(nil)), nil},
		{"8,193 bytes", polPadded(8193, polAllow(nil)), ptr(qlOverLimit("Submitted policy is over max allowed size."))},
		{"8,192 characters of 8,193 bytes", polPadded(8193, polAllow(m{"Resource": `"é"`})), ptr(qlOverLimit("Submitted policy is over max allowed size."))},
		{"malformed and over the size: the form is checked first", polPadded(9000, polStatement("Maybe", nil)), ptr(qlInvalidValueFor("Policy"))},
		{"not JSON and over the size", strings.Repeat("x", 9000), ptr(qlInvalidValueFor("Policy"))},
		{"20 statements", polDoc(polStatements(20, polAllow(nil))...), nil},
		{"21 statements", polDoc(polStatements(21, polAllow(nil))...), ptr(qlOverLimit("21 statements were found in the submitted policy, max allowed is 20"))},
		{"7 actions in a statement", polDoc(polAllow(m{"Action": actions(7)}), polAllow(m{"Action": actions(7)})), nil},
		{"10 actions in a statement", polDoc(polAllow(nil), polAllow(m{"Action": actions(10)})), ptr(qlOverLimit("10 actions were found in a statement from the submitted policy, max allowed is 7"))},
		{"8 actions in NotAction", polDoc(polAllow(m{"NotAction": actions(8)})), ptr(qlOverLimit("8 actions were found in a statement from the submitted policy, max allowed is 7"))},
		{"50 principals over two statements", polDoc(withPrincipals(25), withPrincipals(25)), nil},
		{"52 principals over two statements", polDoc(withPrincipals(26), withPrincipals(26)), ptr(qlOverLimit("52 principals were found in the submitted policy, max allowed is 50"))},
		{"50 principals: NotPrincipal and Principal * count", polDoc(polAllow(m{"NotPrincipal": `{"AWS":` + polList(49, polAccount) + `}`}), polAllow(nil)),
			nil},
		{"51 principals: every principal type counts", polDoc(polAllow(m{"NotPrincipal": `{"AWS":` + polList(49, polAccount) + `,"Service":"sns.amazonaws.com"}`}), polAllow(nil)),
			ptr(qlOverLimit("51 principals were found in the submitted policy, max allowed is 50"))},
		{"10 conditions over two statements", polDoc(withConditions(5), withConditions(5)), nil},
		{"12 conditions over two statements", polDoc(withConditions(6), withConditions(6)), ptr(qlOverLimit("12 conditions were found in the submitted policy, max allowed is 10"))},
		{"11 conditions under two operators", polDoc(withConditions(10), polAllow(m{"Condition": `{"Bool":{"aws:SecureTransport":"true"}}`})),
			ptr(qlOverLimit("11 conditions were found in the submitted policy, max allowed is 10"))},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"Policy": tc.doc}})
			if tc.want == nil {
				require.NoError(t, err)
				text, _ := qlPolicy(t, f, qlURL("q"))
				assert.Equal(t, tc.doc, text)
				return
			}
			qlRequireError(t, err, "CreateQueue", *tc.want)
			_, lookupErr := f.Queue("q")
			assert.ErrorIs(t, lookupErr, ErrNoQueue, "no queue is created")

			u := qlCreate(t, f, "q", map[string]string{"Policy": polDoc(polAllow(nil))})
			before := qlState(t, f)
			_, err = f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"Policy": tc.doc}})
			qlRequireError(t, err, "SetQueueAttributes", *tc.want)
			assert.Equal(t, before, qlState(t, f))
			r := polRequest()
			assert.Equal(t, allowed, polRules(t, f, u).evaluate(&r), "the compiled policy is the one before")
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestAddPermissionOverAPolicyQuotaFailsAndChangesNothing(t *testing.T) {
	one := []string{"111122223333"}
	cases := []struct {
		desc     string
		policy   string // "" = none
		accounts []string
		want     qlErr
	}{
		{"a 21st statement", polDoc(polStatements(20, polAllow(nil))...), one,
			qlOverLimit("21 statements were found in the submitted policy, max allowed is 20")},
		{"51 accounts", "", func() []string {
			ids := make([]string, 51)
			for i := range ids {
				ids[i] = polAccount(i)
			}
			return ids
		}(), qlOverLimit("51 principals were found in the submitted policy, max allowed is 50")},
		{"a 51st principal", polDoc(polAllow(map[string]string{"Principal": `{"AWS":` + polList(50, polAccount) + `}`})), one,
			qlOverLimit("51 principals were found in the submitted policy, max allowed is 50")},
		// Spaces would not do: AddPermission rewrites the document compactly.
		{"over the size", polDoc(polAllow(map[string]string{"Resource": `"` + strings.Repeat("r", 8100-len(polDoc(polAllow(nil)))) + `"`})), one,
			qlOverLimit("Submitted policy is over max allowed size.")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			var attrs map[string]string
			if tc.policy != "" {
				attrs = map[string]string{"Policy": tc.policy}
			}
			u := qlCreate(t, f, "q", attrs)
			before := qlState(t, f)
			_, err := f.AddPermission(context.Background(), &sqs.AddPermissionInput{
				QueueUrl: aws.String(u), Label: aws.String("L"), AWSAccountIds: tc.accounts, Actions: []string{"SendMessage"},
			})
			qlRequireError(t, err, "AddPermission", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}
