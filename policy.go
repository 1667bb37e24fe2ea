package sqsfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Queue policies: a Policy attribute is compiled once, when SetQueueAttributes, CreateQueue,
// AddPermission or RemovePermission stores it, and evaluated on every call without
// allocating. The rules, with their sources (SPEC-access.md §3, §5, §8 and the IAM policy
// reference, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements.html):
//
//   - Effect is "Allow" or "Deny"; an explicit Deny wins over any Allow, and statement order
//     does not matter (SQS "evaluation logic" page). Statement is an object or an array.
//   - Principal is "*" or an object. {"AWS": …} takes "*", a 12-digit account id or the
//     account's root ARN (both stand for every principal of the account, as AWS treats an
//     account principal), or a user, role or role-session ARN matched exactly. A role ARN
//     also matches the sessions of that role (arn:aws:sts::A:assumed-role/R/S matches
//     arn:aws:iam::A:role/…/R): AWS confirmed this to a user in 2023
//     (https://stackoverflow.com/questions/73696226, answer checked with AWS support), and
//     aws:PrincipalArn of a session is its role's ARN (IAM global condition keys page).
//     {"Service": name} matches a call made as that service principal (companion.AsService), which no
//     account principal matches; Federated and CanonicalUser match no caller the fake has.
//     Wildcards inside a principal ARN are not wildcards (IAM Principal page: "You cannot use
//     a wildcard to match part of a principal name or ARN"): such a principal matches no one.
//     NotPrincipal is the inverse match.
//   - A statement with neither Principal nor NotPrincipal is taken and applies to no one. The
//     IAM Principal page says resource-based policies must name one, but an
//     AWS::SQS::QueuePolicy whose Principal resolves to nothing deploys
//     (https://github.com/trendmicro/cloudone-filestorage-deployment-templates/issues/93:
//     "Everything appears to work ok"), so SQS does not refuse it; granting nothing is the
//     least-privilege reading.
//   - Action/NotAction: "*", "sqs:*", wildcards * and ? anywhere, prefix and name
//     case-insensitive (IAM Action page). The request action is always an operation's single
//     form (SQS batch page: permissions for SendMessage cover SendMessageBatch), so a policy
//     naming sqs:SendMessageBatch is accepted but never authorises anything: AWS accepts such
//     policies (SAM's policy templates named them for years, https://github.com/aws/serverless-application-model/issues/3633;
//     IAM Access Analyzer only warns), and the denied SendMessageBatch there names
//     sqs:sendmessage.
//   - Resource/NotResource: case-sensitive, * and ? match any run of characters and any one
//     character, colons included. A statement needs one of them: SQS refused a policy whose
//     statement had no Resource (https://github.com/aws/aws-cdk/issues/1675). A Resource list
//     is taken, although a 2017 report says SQS allowed one resource per statement
//     (https://github.com/remind101/stacker_blueprints/pull/71); refusing it would break
//     policies that may well be valid today.
//   - Condition: every operator and every key in it must hold (AND); the values of one key
//     are alternatives (OR). Keys are case-insensitive. The request context carries
//     aws:SourceArn, aws:SourceAccount and aws:PrincipalOrgID when the call has them,
//     aws:SecureTransport always, aws:PrincipalAccount and aws:PrincipalArn when the caller is
//     known; any other key is absent. An absent key makes a condition false, true for the
//     negated operators (String*Not*, ArnNot*, NumericNotEquals, DateNotEquals,
//     NotIpAddress) and for …IfExists; Null tests presence; ForAllValues: with an absent key
//     is true (IAM condition operators page). The numeric, date, IP and binary operators are
//     recognised; the fake's request context has no key of those types, so their keys are
//     always absent. An operator that is not one of AWS's is refused: IAM answers "Syntax
//     errors in policy" for a malformed condition block
//     (https://github.com/aws-cloudformation/cfn-lint/issues/3751).
//   - Policy variables (${aws:username}) are not substituted; they compare literally.
//
// Refused, as InvalidAttributeValue "Invalid value for the parameter Policy." (SPEC-access
// §5): text that is not one JSON object; a Version other than "2012-10-17" or "2008-10-17"
// (absent is fine); a missing or null Statement, or one that is neither an object nor an
// array of objects; a statement without Effect "Allow" or "Deny", without Action or
// NotAction, without Resource or NotResource, or with both members of such a pair; members of
// the wrong JSON type; a Principal string other than "*" or a principal type other than AWS,
// Service, Federated and CanonicalUser; an unknown condition operator. Also refused, with no
// sample of AWS's answer found (UNCONFIRMED): an empty list in Action, NotAction, Resource,
// NotResource or under a principal type ({"AWS":[]}), which names nothing; an AWS principal
// that is not "*", a 12-digit account id or an ARN, such as "bob" (see addAWS). An empty
// Statement array is taken: a policy with no statement grants nothing, and the project's
// attribute tests pin {"Statement":[]} as a valid Policy. A document of the right form over
// one of SQS's quotas is OverLimit (403) instead (checkQuotas). Element names are
// case-sensitive, as IAM's policy grammar writes them: a policy or statement member that
// differs from an element only in case ("effect") is refused, and so is an object — the
// policy, a statement, a Principal, a Condition or an operator's block — that names a member
// twice, which Go's JSON decoder would read as its last value: {"Effect":"Deny", …,
// "effect":"Allow"} would have granted while it reads as a Deny (issue 25). IAM's
// troubleshooting page calls a statement with more than one Effect, Action or Resource
// invalid; SQS's own answer to one was not found (UNVERIFIED). Unknown members are ignored.
// A root ARN names its account in its own partition: arn:aws-cn:iam::A:root admits no
// caller of the aws partition; a bare account id admits the account's callers.

// accessRequest is one call asking to act on a queue.
type accessRequest struct {
	account                  string // the caller's 12-digit account
	principal                string // the caller's principal ARN
	action                   string // the SQS action in its single form, e.g. "SendMessage"
	resource                 string // the queue ARN
	secureTransport          bool   // aws:SecureTransport
	sourceArn, sourceAccount string // aws:SourceArn / aws:SourceAccount; "" = absent
	orgID                    string // aws:PrincipalOrgID; "" = absent
	service                  bool   // the caller is the service principal named by principal
	qualified                bool   // action carries its service prefix already (companion.ResourcePolicy)
}

// decision is the outcome of evaluating a policy, or of authorizing a call.
type decision uint8

const (
	implicitDeny decision = iota // no statement allows
	allowed
	explicitDeny
)

func (d decision) String() string {
	switch d {
	case allowed:
		return "allowed"
	case explicitDeny:
		return "explicitDeny"
	}
	return "implicitDeny"
}

// queuePolicy is a compiled Policy attribute.
type queuePolicy struct {
	statements   []policyStatement
	principalArn bool // some condition reads aws:PrincipalArn

	principalCount, conditionCount int // for the quotas, counted over the whole document
}

type policyStatement struct {
	deny         bool
	principals   principalSet
	notPrincipal bool
	actions      []pattern // lower case
	notAction    bool
	resources    []pattern
	notResource  bool
	conditions   []policyCondition
}

// principalSet is what a Principal or NotPrincipal names.
type principalSet struct {
	anyone   bool
	accounts []string  // account ids: every principal of the account
	roots    []roleRef // root ARNs (name ""): every principal of the account in the ARN's partition
	arns     []string  // user, role and session ARNs, matched exactly
	roles    []roleRef // role ARNs, which also match the role's sessions
	services []string  // service principals ({"Service": …}), matched exactly
}

type roleRef struct{ partition, account, name string }

type conditionOp uint8

const (
	opStringEquals conditionOp = iota
	opStringEqualsIgnoreCase
	opStringLike
	opArnLike // ArnEquals and ArnLike are the same test (IAM condition operators page)
	opBool
	opNull
	opUntyped // numeric, date, IP and binary operators: no key of theirs is ever present
)

type conditionKey uint8

const (
	keyAbsent conditionKey = iota
	keySourceArn
	keySourceAccount
	keyPrincipalOrgID
	keySecureTransport
	keyPrincipalAccount
	keyPrincipalArn
)

var conditionKeys = map[string]conditionKey{
	"aws:sourcearn": keySourceArn, "aws:sourceaccount": keySourceAccount,
	"aws:principalorgid": keyPrincipalOrgID, "aws:securetransport": keySecureTransport,
	"aws:principalaccount": keyPrincipalAccount, "aws:principalarn": keyPrincipalArn,
}

type operatorInfo struct {
	op      conditionOp
	negated bool
}

// conditionOperators are AWS's condition operators, lower-cased, without the IfExists
// suffix and the ForAnyValue:/ForAllValues: prefixes.
var conditionOperators = map[string]operatorInfo{
	"stringequals": {opStringEquals, false}, "stringnotequals": {opStringEquals, true},
	"stringequalsignorecase": {opStringEqualsIgnoreCase, false}, "stringnotequalsignorecase": {opStringEqualsIgnoreCase, true},
	"stringlike": {opStringLike, false}, "stringnotlike": {opStringLike, true},
	"arnequals": {opArnLike, false}, "arnlike": {opArnLike, false},
	"arnnotequals": {opArnLike, true}, "arnnotlike": {opArnLike, true},
	"bool": {opBool, false}, "null": {opNull, false},
	"numericequals": {opUntyped, false}, "numericnotequals": {opUntyped, true},
	"numericlessthan": {opUntyped, false}, "numericlessthanequals": {opUntyped, false},
	"numericgreaterthan": {opUntyped, false}, "numericgreaterthanequals": {opUntyped, false},
	"dateequals": {opUntyped, false}, "datenotequals": {opUntyped, true},
	"datelessthan": {opUntyped, false}, "datelessthanequals": {opUntyped, false},
	"dategreaterthan": {opUntyped, false}, "dategreaterthanequals": {opUntyped, false},
	"binaryequals": {opUntyped, false}, "ipaddress": {opUntyped, false}, "notipaddress": {opUntyped, true},
}

type policyCondition struct {
	op        conditionOp
	negated   bool
	ifExists  bool
	forAll    bool // ForAllValues: true when the key is absent
	key       conditionKey
	values    []string
	nullTrue  bool // Null: some value is "true" (matches an absent key)
	nullFalse bool // Null: some value is "false" (matches a present key)
}

var errBadPolicy = errors.New("invalid policy")

// SQS's policy quotas (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-policies.html).
// Only actions are counted per statement ("Actions per statement"); the page names bytes,
// conditions, principals and statements without "per statement", so they are counted over
// the whole document.
const (
	maxPolicyBytes            = 8192
	maxPolicyStatements       = 20
	maxPolicyPrincipals       = 50
	maxPolicyConditions       = 10
	maxPolicyStatementActions = 7
)

// checkQuotas answers OverLimit for a policy over one of SQS's quotas, size first, then
// statements, actions (statement by statement), principals and conditions: an order of
// the fake's choosing. Two messages are AWS's: "Submitted policy is over max allowed size."
// (https://github.com/BishopFox/cloudfoxable/issues/29, https://github.com/aws/aws-sdk-net/issues/378)
// and "10 actions were found in a statement from the submitted policy, max allowed is 7"
// (https://github.com/ministryofjustice/cloud-platform-environments/pull/9082). The
// statement, principal and condition messages are UNCONFIRMED: written after the actions
// one. A principal is one value of Principal or NotPrincipal ("*" is one); a condition is one
// key under one operator. Size is the document's bytes as given, white space included.
func checkQuotas(doc string, p *queuePolicy) *sqsError {
	over := func(n int, what string, max int) *sqsError {
		return newError("OverLimit", strconv.Itoa(n)+" "+what+" max allowed is "+strconv.Itoa(max))
	}
	switch {
	case len(doc) > maxPolicyBytes:
		return newError("OverLimit", "Submitted policy is over max allowed size.")
	case len(p.statements) > maxPolicyStatements:
		return over(len(p.statements), "statements were found in the submitted policy,", maxPolicyStatements)
	}
	for i := range p.statements {
		if n := len(p.statements[i].actions); n > maxPolicyStatementActions {
			return over(n, "actions were found in a statement from the submitted policy,", maxPolicyStatementActions)
		}
	}
	switch {
	case p.principalCount > maxPolicyPrincipals:
		return over(p.principalCount, "principals were found in the submitted policy,", maxPolicyPrincipals)
	case p.conditionCount > maxPolicyConditions:
		return over(p.conditionCount, "conditions were found in the submitted policy,", maxPolicyConditions)
	}
	return nil
}

// rawPolicy is a policy document as AddPermission reads it (permissions.go), so that the
// compiled form sees the same members.
type rawPolicy struct {
	Version   json.RawMessage
	ID        json.RawMessage `json:"Id"`
	Statement *statementList
}

type rawStatement struct {
	Sid          json.RawMessage
	Effect       json.RawMessage
	Principal    json.RawMessage
	NotPrincipal json.RawMessage
	Action       json.RawMessage
	NotAction    json.RawMessage
	Resource     json.RawMessage
	NotResource  json.RawMessage
	Condition    json.RawMessage
}

// The elements of a policy and of a statement, as IAM's policy grammar names them. Go's JSON
// decoder matches struct fields without case and keeps the last of a repeated member, so
// that {"Effect":"Deny", …, "effect":"Allow"} would read as an Allow: exactMembers refuses
// such documents first.
var (
	policyElements    = []string{"Version", "Id", "Statement"}
	statementElements = []string{"Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource", "Condition"}
)

// exactMembers reports whether the JSON object text names no member twice and no member
// of elements in another case than its own.
func exactMembers(text []byte, elements []string) bool {
	dec := json.NewDecoder(bytes.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var seen []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		name, _ := t.(string)
		if slices.Contains(seen, name) {
			return false
		}
		for _, e := range elements {
			if name != e && strings.EqualFold(name, e) {
				return false
			}
		}
		seen = append(seen, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return true
}

// compilePolicy parses a Policy attribute value; an error means SQS refuses it: errBadPolicy
// (InvalidAttributeValue) for a document of the wrong form, checked first, else an OverLimit
// *sqsError for one over a quota.
func compilePolicy(doc string) (*queuePolicy, error) {
	p, err := compilePolicyForm(doc)
	if err != nil {
		return nil, err
	}
	if err := checkQuotas(doc, p); err != nil {
		return nil, err
	}
	return p, nil
}

// compilePolicyForm is compilePolicy without SQS's quotas.
func compilePolicyForm(doc string) (*queuePolicy, error) {
	var raw rawPolicy
	if !isJSONObject(doc) || !exactMembers([]byte(doc), policyElements) || json.Unmarshal([]byte(doc), &raw) != nil {
		return nil, errBadPolicy
	}
	if raw.Version != nil {
		v, ok := jsonString(raw.Version)
		if !ok || v != "2012-10-17" && v != "2008-10-17" {
			return nil, errBadPolicy
		}
	}
	if raw.ID != nil {
		if _, ok := jsonString(raw.ID); !ok {
			return nil, errBadPolicy
		}
	}
	if raw.Statement == nil {
		return nil, errBadPolicy
	}
	p := &queuePolicy{statements: make([]policyStatement, 0, len(*raw.Statement))}
	for _, st := range *raw.Statement {
		s, err := compileStatement(st, p)
		if err != nil {
			return nil, err
		}
		p.statements = append(p.statements, s)
	}
	return p, nil
}

func compileStatement(text json.RawMessage, p *queuePolicy) (policyStatement, error) {
	var s policyStatement
	var raw rawStatement
	if !isJSONObject(string(text)) || !exactMembers(text, statementElements) || json.Unmarshal(text, &raw) != nil {
		return s, errBadPolicy
	}
	if raw.Sid != nil {
		if _, ok := jsonString(raw.Sid); !ok {
			return s, errBadPolicy
		}
	}
	switch effect, _ := jsonString(raw.Effect); effect {
	case "Allow":
	case "Deny":
		s.deny = true
	default:
		return s, errBadPolicy
	}
	var err error
	pick := func(pos, neg json.RawMessage, required bool) (json.RawMessage, bool, error) {
		switch {
		case pos != nil && neg != nil:
			return nil, false, errBadPolicy
		case neg != nil:
			return neg, true, nil
		case pos == nil && required:
			return nil, false, errBadPolicy
		}
		return pos, false, nil
	}
	var principal, action, resource json.RawMessage
	if principal, s.notPrincipal, err = pick(raw.Principal, raw.NotPrincipal, false); err != nil {
		return s, err
	}
	if principal != nil {
		var n int
		if s.principals, n, err = compilePrincipal(principal); err != nil {
			return s, err
		}
		p.principalCount += n
	}
	if action, s.notAction, err = pick(raw.Action, raw.NotAction, true); err != nil {
		return s, err
	}
	if s.actions, err = patternList(action, true); err != nil {
		return s, err
	}
	if resource, s.notResource, err = pick(raw.Resource, raw.NotResource, true); err != nil {
		return s, err
	}
	if s.resources, err = patternList(resource, false); err != nil {
		return s, err
	}
	if raw.Condition != nil {
		if s.conditions, err = compileConditions(raw.Condition, p); err != nil {
			return s, err
		}
		p.conditionCount += len(s.conditions)
	}
	return s, nil
}

// compilePrincipal reads a Principal or NotPrincipal, with the number of principals it names.
func compilePrincipal(text json.RawMessage) (principalSet, int, error) {
	var set principalSet
	if s, ok := jsonString(text); ok {
		if s != "*" {
			return set, 0, errBadPolicy
		}
		set.anyone = true
		return set, 1, nil
	}
	var byType map[string]json.RawMessage
	if !isJSONObject(string(text)) || !exactMembers(text, nil) || json.Unmarshal(text, &byType) != nil {
		return set, 0, errBadPolicy
	}
	n := 0
	for kind, v := range byType {
		ids, err := stringList(v)
		if err != nil || len(ids) == 0 {
			return set, 0, errBadPolicy
		}
		n += len(ids)
		switch kind {
		case "AWS":
			for _, id := range ids {
				if !set.addAWS(id) {
					return set, 0, errBadPolicy
				}
			}
		case "Service":
			set.services = append(set.services, ids...)
		case "Federated", "CanonicalUser":
			// Not a caller the fake can have: matches no one.
		default:
			return set, 0, errBadPolicy
		}
	}
	return set, n, nil
}

// addAWS adds an AWS principal: "*", a 12-digit account id or an ARN; it reports false for
// anything else (SQS answers InvalidAttributeValue for a principal it cannot resolve:
// https://github.com/aws/aws-cdk/issues/13530, a user ARN that did not exist; IAM's own
// answer is MalformedPolicyDocument "Invalid principal in policy"). The fake has no
// directory of users and roles, so it refuses only what cannot be a principal at all.
func (set *principalSet) addAWS(id string) bool {
	if id == "*" {
		set.anyone = true
		return true
	}
	if isAccountID(id) {
		set.accounts = append(set.accounts, id)
		return true
	}
	if !wellFormedARN(id) {
		return false
	}
	partition, account, resource, ok := splitIAMArn(id, "iam")
	switch {
	case ok && resource == "root":
		set.roots = append(set.roots, roleRef{partition: partition, account: account})
		return true
	case ok && strings.HasPrefix(resource, "role/"):
		name := resource[strings.LastIndexByte(resource, '/')+1:]
		set.roles = append(set.roles, roleRef{partition, account, name})
	}
	set.arns = append(set.arns, id)
	return true
}

// arnPartition returns the partition of an ARN, "" if it is none.
func arnPartition(arn string) string {
	rest, ok := strings.CutPrefix(arn, "arn:")
	if !ok {
		return ""
	}
	partition, _, _ := strings.Cut(rest, ":")
	return partition
}

// splitIAMArn splits arn:<partition>:<service>::<account>:<resource>.
func splitIAMArn(arn, service string) (partition, account, resource string, ok bool) {
	rest, ok := strings.CutPrefix(arn, "arn:")
	if !ok {
		return "", "", "", false
	}
	partition, rest, ok = strings.Cut(rest, ":")
	if !ok {
		return "", "", "", false
	}
	rest, ok = strings.CutPrefix(rest, service+"::")
	if !ok {
		return "", "", "", false
	}
	account, resource, ok = strings.Cut(rest, ":")
	return partition, account, resource, ok && account != "" && resource != ""
}

func compileConditions(text json.RawMessage, p *queuePolicy) ([]policyCondition, error) {
	var ops map[string]json.RawMessage
	if !isJSONObject(string(text)) || !exactMembers(text, nil) || json.Unmarshal(text, &ops) != nil {
		return nil, errBadPolicy
	}
	var out []policyCondition
	for name, block := range ops {
		var c policyCondition
		base := asciiLower(name)
		if rest, ok := strings.CutPrefix(base, "forallvalues:"); ok {
			base, c.forAll = rest, true
		} else if rest, ok := strings.CutPrefix(base, "foranyvalue:"); ok {
			base = rest
		}
		if rest, ok := strings.CutSuffix(base, "ifexists"); ok && rest != "null" {
			base, c.ifExists = rest, true
		}
		info, ok := conditionOperators[base]
		if !ok {
			return nil, errBadPolicy
		}
		c.op, c.negated = info.op, info.negated
		var keys map[string]json.RawMessage
		if !isJSONObject(string(block)) || !exactMembers(block, nil) || json.Unmarshal(block, &keys) != nil {
			return nil, errBadPolicy
		}
		for key, v := range keys {
			kc := c
			values, err := valueList(v, true)
			if err != nil {
				return nil, err
			}
			kc.key = conditionKeys[asciiLower(key)]
			if kc.op == opUntyped {
				kc.key = keyAbsent
			}
			if kc.key == keyPrincipalArn {
				p.principalArn = true
			}
			if kc.op == opNull {
				for _, v := range values {
					kc.nullTrue = kc.nullTrue || strings.EqualFold(v, "true")
					kc.nullFalse = kc.nullFalse || strings.EqualFold(v, "false")
				}
			}
			kc.values = values
			out = append(out, kc)
		}
	}
	return out, nil
}

// jsonString reports the value of a JSON string.
func jsonString(text json.RawMessage) (string, bool) {
	if len(text) == 0 || text[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(text, &s) == nil
}

// stringList reads a policy member that is one string or an array of strings.
func stringList(text json.RawMessage) ([]string, error) { return valueList(text, false) }

// valueList reads one value or an array of values. With scalars, JSON numbers and booleans
// are values too, kept as written: condition values (jsonencode writes false for "false").
func valueList(text json.RawMessage, scalars bool) ([]string, error) {
	text = bytes.TrimSpace(text)
	if len(text) > 0 && text[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(text, &items) != nil {
			return nil, errBadPolicy
		}
		out := make([]string, 0, len(items))
		for _, it := range items {
			s, ok := scalar(it, scalars)
			if !ok {
				return nil, errBadPolicy
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, ok := scalar(text, scalars)
	if !ok {
		return nil, errBadPolicy
	}
	return []string{s}, nil
}

func scalar(text json.RawMessage, scalars bool) (string, bool) {
	text = bytes.TrimSpace(text)
	if s, ok := jsonString(text); ok || !scalars {
		return s, ok
	}
	if len(text) == 0 || text[0] == 'n' || text[0] == '{' || text[0] == '[' {
		return "", false // null, objects and arrays are not values
	}
	return string(text), true // true, false or a number
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// requestContext is what one evaluation reads, derived once per request on the stack.
type requestContext struct {
	r            *accessRequest
	action       []byte // "sqs:" + action
	principalArn []byte // aws:PrincipalArn: a session's role ARN, else the principal ARN
	session      roleRef
	isSession    bool
}

// evaluate decides r against the policy; p may be nil: implicitDeny.
func (p *queuePolicy) evaluate(r *accessRequest) decision {
	if p == nil {
		return implicitDeny
	}
	var actionBuf [64]byte
	var arnBuf [256]byte
	c := requestContext{r: r, action: append(append(actionBuf[:0], "sqs:"...), r.action...)}
	if r.qualified {
		c.action = append(actionBuf[:0], r.action...)
	}
	c.session, c.isSession = sessionRole(r.principal)
	if p.principalArn {
		if c.isSession {
			b := append(arnBuf[:0], "arn:"...)
			b = append(append(b, c.session.partition...), ":iam::"...)
			b = append(append(b, c.session.account...), ":role/"...)
			c.principalArn = append(b, c.session.name...)
		} else {
			c.principalArn = append(arnBuf[:0], r.principal...)
		}
	}
	d := implicitDeny
	for i := range p.statements {
		s := &p.statements[i]
		if d == allowed && !s.deny || !s.applies(&c) {
			continue
		}
		if s.deny {
			return explicitDeny
		}
		d = allowed
	}
	return d
}

// sessionRole reads arn:<partition>:sts::<account>:assumed-role/<role>/<session>.
func sessionRole(principal string) (roleRef, bool) {
	partition, account, resource, ok := splitIAMArn(principal, "sts")
	if !ok {
		return roleRef{}, false
	}
	rest, ok := strings.CutPrefix(resource, "assumed-role/")
	if !ok {
		return roleRef{}, false
	}
	name, _, ok := strings.Cut(rest, "/")
	return roleRef{partition, account, name}, ok && name != ""
}

func (s *policyStatement) applies(c *requestContext) bool {
	if s.principals.matches(c) == s.notPrincipal {
		return false
	}
	if matchAnyPattern(s.actions, c.action, true) == s.notAction {
		return false
	}
	if matchAnyPattern(s.resources, c.r.resource, false) == s.notResource {
		return false
	}
	for i := range s.conditions {
		if !s.conditions[i].holds(c) {
			return false
		}
	}
	return true
}

func (set *principalSet) matches(c *requestContext) bool {
	if set.anyone {
		return true
	}
	if c.r.service {
		for _, s := range set.services {
			if s == c.r.principal {
				return true
			}
		}
		return false
	}
	for _, a := range set.accounts {
		if a == c.r.account {
			return true
		}
	}
	for _, root := range set.roots {
		// A root ARN names an account of one partition: arn:aws-cn:iam::<account>:root
		// admits no caller of the aws partition (issue 25).
		if root.account == c.r.account && root.partition == arnPartition(c.r.principal) {
			return true
		}
	}
	for _, a := range set.arns {
		if a == c.r.principal {
			return true
		}
	}
	if c.isSession {
		for _, role := range set.roles {
			if role == c.session {
				return true
			}
		}
	}
	return false
}

// pattern is an Action or Resource pattern; literal when it has no wildcard, so that it is
// compared as a whole: most patterns of a policy are literal and differ from the request in
// their length or their last characters.
type pattern struct {
	text    string
	literal bool
}

// patternList reads an Action or Resource member; actions are matched without case, so
// their patterns are lowered.
func patternList(text json.RawMessage, lower bool) ([]pattern, error) {
	list, err := stringList(text)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, errBadPolicy // an empty list names nothing (UNCONFIRMED: no sample found)
	}
	out := make([]pattern, len(list))
	for i, p := range list {
		if lower {
			p = asciiLower(p)
		}
		out[i] = pattern{p, !strings.ContainsAny(p, "*?")}
	}
	return out, nil
}

func matchAnyPattern[S ~string | ~[]byte](patterns []pattern, s S, fold bool) bool {
	for _, p := range patterns {
		if p.literal && equalString(p.text, s, fold) || !p.literal && wildcardMatch(p.text, s, fold) {
			return true
		}
	}
	return false
}

func (cond *policyCondition) holds(c *requestContext) bool {
	var v string
	var vb []byte
	present := true
	switch cond.key {
	case keySourceArn:
		v, present = c.r.sourceArn, c.r.sourceArn != ""
	case keySourceAccount:
		v, present = c.r.sourceAccount, c.r.sourceAccount != ""
	case keyPrincipalOrgID:
		v, present = c.r.orgID, c.r.orgID != ""
	case keySecureTransport:
		v = "false"
		if c.r.secureTransport {
			v = "true"
		}
	case keyPrincipalAccount:
		v, present = c.r.account, c.r.account != ""
	case keyPrincipalArn:
		vb, present = c.principalArn, len(c.principalArn) > 0
	default:
		present = false
	}
	if cond.op == opNull {
		if present {
			return cond.nullFalse
		}
		return cond.nullTrue
	}
	if !present {
		return cond.forAll || cond.ifExists || cond.negated
	}
	matched := false
	for _, want := range cond.values {
		if vb != nil {
			matched = matchValue(cond.op, want, vb)
		} else {
			matched = matchValue(cond.op, want, v)
		}
		if matched {
			break
		}
	}
	return matched != cond.negated
}

func matchValue[S ~string | ~[]byte](op conditionOp, want string, got S) bool {
	switch op {
	case opStringEquals:
		return equalString(want, got, false)
	case opStringEqualsIgnoreCase, opBool:
		return equalString(want, got, true)
	case opStringLike:
		return wildcardMatch(want, got, false)
	case opArnLike:
		return arnLike(want, got)
	}
	return false
}

// equalString compares a and b, with fold ignoring the case of ASCII letters: the values
// the context keys hold (ARNs, account and organization ids, true and false) are ASCII.
func equalString[S ~string | ~[]byte](a string, b S, fold bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := len(a) - 1; i >= 0; i-- { // from the end: ARNs differ there
		if a[i] != b[i] && (!fold || lowerASCII(a[i]) != lowerASCII(b[i])) {
			return false
		}
	}
	return true
}

// arnLike matches an ARN against a pattern one colon-separated component at a time, as
// ArnLike and ArnEquals do (IAM condition operators page: "Each of the six colon-delimited
// components of the ARN is checked separately"); the sixth takes the rest, colons included.
func arnLike[S ~string | ~[]byte](pattern string, arn S) bool {
	for range 5 {
		pi := strings.IndexByte(pattern, ':')
		ai := indexByte(arn, ':')
		if pi < 0 || ai < 0 || !wildcardMatch(pattern[:pi], arn[:ai], false) {
			return false
		}
		pattern, arn = pattern[pi+1:], arn[ai+1:]
	}
	return wildcardMatch(pattern, arn, false)
}

func indexByte[S ~string | ~[]byte](s S, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// wildcardMatch reports whether s matches pattern, where * matches any run of characters
// and ? any one character. With fold, s is compared ASCII-case-insensitively against a
// pattern that is already lower case.
func wildcardMatch[S ~string | ~[]byte](pattern string, s S, fold bool) bool {
	pi, si := 0, 0
	star, next := -1, 0 // the last * seen, and where s resumes if it absorbs one more byte
	for si < len(s) {
		if pi < len(pattern) {
			switch c := pattern[pi]; {
			case c == '*':
				star, next = pi, si
				pi++
				continue
			case c == '?':
				pi++
				si += runeLen(s, si)
				continue
			case c == s[si] || fold && c == lowerASCII(s[si]):
				pi++
				si++
				continue
			}
		}
		if star < 0 {
			return false
		}
		next++
		pi, si = star+1, next
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// runeLen is the length of the UTF-8 character at s[i], so that ? matches a character; a
// byte that does not start a whole sequence is one character, as in Go's decoding.
func runeLen[S ~string | ~[]byte](s S, i int) int {
	n := 1
	switch b := s[i]; {
	case b >= 0xF0:
		n = 4
	case b >= 0xE0:
		n = 3
	case b >= 0xC0:
		n = 2
	}
	if i+n > len(s) {
		return 1
	}
	for k := 1; k < n; k++ {
		if s[i+k]&0xC0 != 0x80 {
			return 1
		}
	}
	return n
}

// ownerOnlyActions cannot be granted to another account: a policy that allows them to one is
// ignored for them (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-limitations-of-custom-policies.html,
// SPEC-access §3).
func ownerOnlyAction(action string) bool {
	switch action {
	case "AddPermission", "CancelMessageMoveTask", "CreateQueue", "DeleteQueue", "ListMessageMoveTasks",
		"ListQueues", "ListQueueTags", "RemovePermission", "SetQueueAttributes", "StartMessageMoveTask",
		"TagQueue", "UntagQueue":
		return true
	}
	return false
}

// authorize applies SQS's owner rule around a policy decision: a caller of the queue's own
// account may act unless the policy explicitly denies it; another account's caller needs an
// Allow, and never gets one for the actions that cannot be shared (SPEC-access §3). An
// explicit deny is reported as such for those too: AWS evaluates explicit denies first (IAM
// policy evaluation logic).
func authorize(p *queuePolicy, queueAccount string, r *accessRequest) decision {
	d := p.evaluate(r)
	switch {
	case d == explicitDeny:
		return explicitDeny
	case r.account == queueAccount:
		return allowed
	case ownerOnlyAction(r.action):
		return implicitDeny
	}
	return d
}

// accessDeniedMessage is the message of the AccessDenied error for a refused call, in the
// form AWS uses since 2023 (SPEC-access §1). AWS prints the action in lower case in both
// places: "... to perform: sqs:sendmessage on resource: ... because no resource-based policy
// allows the sqs:sendmessage action" (https://github.com/microsoft/aspire/pull/3333, 2024;
// the identity-based form in https://github.com/aws/serverless-application-model/issues/3633
// does the same). The explicit-deny tail is the IAM guide's format
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html); no SQS
// sample was found. A caller without a principal is "anonymous", as AWS names one.
func accessDeniedMessage(r *accessRequest, d decision) string {
	if d == allowed {
		return ""
	}
	who := r.principal
	if who == "" {
		who = "anonymous"
	}
	action := "sqs:" + asciiLower(r.action)
	head := "User: " + who + " is not authorized to perform: " + action + " on resource: " + r.resource
	if d == explicitDeny {
		return head + " with an explicit deny in a resource-based policy"
	}
	return head + " because no resource-based policy allows the " + action + " action"
}

// setPolicy stores a Policy attribute value with its compiled form, or answers the error SQS
// gives for it and changes nothing: InvalidAttributeValue "Invalid value for the parameter
// Policy." or OverLimit. AddPermission and RemovePermission write documents built from one
// that compiled, which have its form but may be over a quota.
func (c *queueConfig) setPolicy(text string) *sqsError {
	var rules *queuePolicy
	if text != "" {
		var err error
		if rules, err = compilePolicy(text); err != nil {
			if over := (*sqsError)(nil); errors.As(err, &over) {
				return over
			}
			return errInvalidAttrValue(attrPolicy)
		}
	}
	c.policy, c.policyRules = text, rules
	return nil
}
