package snsfake

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/sqsfake/sqsfake/companion"
)

// topic is one topic, in its creator's account and region.
type topic struct {
	arn, name, account, region string
	fifo                       bool
	attrs                      map[string]string // the attributes set at creation or since, Policy included
	tags                       map[string]string
	dataProtection             string
	subs                       []*subscription // in the order they were created
	dedup                      map[string]dedupHit
	policy                     *companion.ResourcePolicy // Policy, compiled
	delivery                   *topicPolicy              // DeliveryPolicy, parsed (deliverypolicy.go); nil: none
	dl                         deliveryState             // its publishes' deliveries (publish.go)
	byEndpoint                 map[string]*subscription  // its subscriptions by protocol and endpoint
	filters                    int                       // its subscriptions with a filter policy
}

// dedupHit is what a FIFO topic's deduplication remembers of a publish: its answer, and
// when the 5-minute window ends (SPEC-sns.md §6.3).
type dedupHit struct {
	messageID, sequenceNumber string
	until                     int64
}

const (
	// EffectiveDeliveryPolicy is the EffectiveDeliveryPolicy of a topic without a
	// DeliveryPolicy (SPEC-sns.md §4.3).
	EffectiveDeliveryPolicy = `{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}`

	maxTopicTags  = 50
	topicPageSize = 100
)

// defaultActions are the actions of a topic's default policy, which AddPermission may
// grant (SPEC-sns.md §4.3, §4.4; Receive from older topics).
var defaultActions = []string{"GetTopicAttributes", "SetTopicAttributes", "AddPermission", "RemovePermission", "DeleteTopic", "Subscribe", "ListSubscriptionsByTopic", "Publish"}

// DefaultPolicy is the Policy SNS gives a new topic: only its owner's account may act on it
// (SPEC-sns.md §4.3, the document AWS returns, byte for byte).
func DefaultPolicy(topicArn, owner string) string {
	return `{"Version":"2008-10-17","Id":"__default_policy_ID","Statement":[{"Sid":"__default_statement_ID","Effect":"Allow","Principal":{"AWS":"*"},"Action":["SNS:GetTopicAttributes","SNS:SetTopicAttributes","SNS:AddPermission","SNS:RemovePermission","SNS:DeleteTopic","SNS:Subscribe","SNS:ListSubscriptionsByTopic","SNS:Publish"],"Resource":"` +
		topicArn + `","Condition":{"StringEquals":{"AWS:SourceOwner":"` + owner + `"}}}]}`
}

// topicAttribute is a settable topic attribute: whether FIFO topics only take it, and its
// check (nil: any text).
type topicAttribute struct {
	fifoOnly, standardOnly bool
	check                  func(v string) bool
}

func oneOf(values ...string) func(string) bool {
	return func(v string) bool { return slices.Contains(values, v) }
}

func isBool(v string) bool { return strings.EqualFold(v, "true") || strings.EqualFold(v, "false") }

func isJSONObject(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasPrefix(v, "{") && json.Valid([]byte(v))
}

// validPolicy reports whether a topic Policy compiles with the fake's policy engine.
func validPolicy(v string) bool {
	_, err := companion.CompileResourcePolicy(v)
	return err == nil
}

func isJSONOrEmpty(v string) bool { return v == "" || isJSONObject(v) }

func isPercent(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 0 && n <= 100
}

func isMaxSize(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 1024 && n <= 1048576
}

// topicAttributes are the attributes CreateTopic and SetTopicAttributes take (SPEC-sns.md
// §4.2), FifoTopic apart.
var topicAttributes = func() map[string]topicAttribute {
	m := map[string]topicAttribute{
		"DisplayName":               {},
		"Policy":                    {check: validPolicy},
		"DeliveryPolicy":            {}, // checked by parseTopicPolicy
		"SignatureVersion":          {check: oneOf("1", "2")},
		"ContentBasedDeduplication": {fifoOnly: true, check: isBool},
		"FifoThroughputScope":       {fifoOnly: true, check: oneOf("Topic", "MessageGroup")},
		"ArchivePolicy":             {fifoOnly: true, check: isJSONOrEmpty},
		"KmsMasterKeyId":            {},
		"TracingConfig":             {standardOnly: true, check: oneOf("PassThrough", "Active")},
		"MaximumMessageSize":        {check: isMaxSize},
	}
	for _, p := range []string{"HTTP", "Firehose", "Lambda", "Application", "SQS"} {
		m[p+"SuccessFeedbackRoleArn"] = topicAttribute{}
		m[p+"FailureFeedbackRoleArn"] = topicAttribute{}
		m[p+"SuccessFeedbackSampleRate"] = topicAttribute{check: isPercent}
	}
	return m
}()

// checkTopicAttribute answers SNS's refusal of name=v on t (fifo: the topic's kind), with
// prefix before the member's text: "Attributes Reason: " for CreateTopic, "" for
// SetTopicAttributes. Unknown names on SetTopicAttributes are "Invalid parameter:
// AttributeName" [AWS]; the texts for bad values and for CreateTopic's unknown names are
// UNVERIFIED (SPEC-sns.md §4.2, §12.5): the fake answers "<Name>: Invalid value [<v>]", the
// shape SNS's verified RawMessageDelivery and FilterPolicyScope refusals have, and
// "AttributeName" for an unknown or wrong-kind name.
func checkTopicAttribute(prefix, name, v string, fifo bool) *snsError {
	a, ok := topicAttributes[name]
	if !ok || a.fifoOnly && !fifo || a.standardOnly && fifo {
		return errInvalidParameter(prefix + "AttributeName")
	}
	if tooLong(name, v) {
		return errInvalidParameter(prefix + name + ": Invalid value [" + echo(v) + "]")
	}
	if name == "DeliveryPolicy" && v != "" {
		_, err := parseTopicPolicy(prefix, v)
		return err
	}
	if a.check != nil && !a.check(v) {
		if name == "Policy" {
			// SNS's answer to a policy it cannot read, as users report it (UNVERIFIED
			// against a recording).
			return errInvalidParameter(prefix + "Policy Error: null")
		}
		return errInvalidParameter(prefix + name + ": Invalid value [" + echo(v) + "]")
	}
	return nil
}

// The lengths the fake bounds topic and subscription attributes to, AWS's where it documents
// one: a topic Policy and a data protection policy at 30 KiB ("Bytes: 30 kb", the SNS policy
// quotas; SPEC-sns.md §4.2), a FilterPolicy at 256 KiB (internal/eventpattern), a KMS key id
// at 2,048 characters (KMS's KeyId), a DisplayName at 100 characters (the console's rule;
// UNVERIFIED for the API); the other documents (DeliveryPolicy, ArchivePolicy, RedrivePolicy,
// ReplayPolicy) at 30 KiB as the policies, and role ARNs at IAM's 2,048 (INF). A value over
// its bound is refused as a bad value, "<Name>: Invalid value [<value>]" (the text is
// UNVERIFIED, as for the other bad values), and no topic keeps more than about 200 KiB of
// attributes.
const (
	maxPolicyBytes   = 30 << 10
	maxARNBytes      = 2048
	maxDisplayName   = 100
	maxKMSKeyIDBytes = 2048
)

// tooLong reports whether an attribute's value is over its bound.
func tooLong(name, v string) bool {
	switch name {
	case "DisplayName":
		return len(v) > maxDisplayName && utf8.RuneCountInString(v) > maxDisplayName
	case "KmsMasterKeyId":
		return len(v) > maxKMSKeyIDBytes
	case "Policy", "DeliveryPolicy", "ArchivePolicy", "RedrivePolicy", "ReplayPolicy":
		return len(v) > maxPolicyBytes
	case "SubscriptionRoleArn":
		return len(v) > maxARNBytes
	}
	return strings.HasSuffix(name, "FeedbackRoleArn") && len(v) > maxARNBytes
}

// normalizeTopicAttribute is the stored form of a checked value: booleans lower case, a
// DeliveryPolicy as SNS re-writes it (deliverypolicy.go).
func normalizeTopicAttribute(name, v string) string {
	switch name {
	case "ContentBasedDeduplication":
		return strings.ToLower(v)
	case "DeliveryPolicy":
		if tp, err := parseTopicPolicy("", v); err == nil && v != "" {
			return tp.String()
		}
	}
	return v
}

// setDeliveryPolicy parses the topic's stored DeliveryPolicy (checked already).
func (t *topic) setDeliveryPolicy() {
	t.delivery = nil
	if v := t.attrs["DeliveryPolicy"]; v != "" {
		t.delivery, _ = parseTopicPolicy("", v)
	}
}

func isTopicNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// validTopicName reports whether name is a topic name of the kind: 1–256 of [A-Za-z0-9_-],
// a FIFO name ending in .fifo (counted in the 256, INF).
func validTopicName(name string, fifo bool) bool {
	base := name
	if fifo {
		var ok bool
		if base, ok = strings.CutSuffix(name, ".fifo"); !ok {
			return false
		}
	}
	if base == "" || len(name) > 256 {
		return false
	}
	for i := 0; i < len(base); i++ {
		if !isTopicNameChar(base[i]) {
			return false
		}
	}
	return true
}

func topicARN(region, account, name string) string {
	return "arn:" + partitionOf(region) + ":sns:" + region + ":" + account + ":" + name
}

// CreateTopic creates a topic, or returns the ARN of the caller's topic of that name when
// every attribute and tag sent equals the stored one (SPEC-sns.md §4.1).
func (s *Fake) CreateTopic(ctx context.Context, params *sns.CreateTopicInput, optFns ...func(*sns.Options)) (out *sns.CreateTopicOutput, err error) {
	if params == nil {
		params = &sns.CreateTopicInput{}
	}
	c, err := s.begin(ctx, "CreateTopic", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	arn, e := s.createTopic(c, params)
	s.mu.Unlock()
	if e != nil {
		return nil, c.fail(e)
	}
	return &sns.CreateTopicOutput{TopicArn: aws.String(arn)}, nil
}

func (s *Fake) createTopic(c *call, in *sns.CreateTopicInput) (string, *snsError) {
	name := aws.ToString(in.Name)
	fifoAttr, hasFifo := in.Attributes["FifoTopic"]
	if hasFifo && !isBool(fifoAttr) {
		return "", errInvalidParameter("Attributes Reason: FifoTopic: Invalid value [" + echo(fifoAttr) + "]")
	}
	fifo := strings.EqualFold(fifoAttr, "true")
	if !validTopicName(name, fifo) || !fifo && strings.HasSuffix(name, ".fifo") {
		return "", errInvalidParameter("Topic Name")
	}
	for _, k := range slices.Sorted(maps.Keys(in.Attributes)) {
		if k == "FifoTopic" {
			continue
		}
		if err := checkTopicAttribute("Attributes Reason: ", k, in.Attributes[k], fifo); err != nil {
			return "", err
		}
	}
	if err := checkTags(in.Tags); err != nil {
		return "", err
	}
	if in.DataProtectionPolicy != nil && (!isJSONOrEmpty(*in.DataProtectionPolicy) || len(*in.DataProtectionPolicy) > maxPolicyBytes) {
		return "", errInvalidParameter("DataProtectionPolicy")
	}
	arn := topicARN(c.who.region, c.who.account, name)
	t := s.topics[arn]
	if t == nil && s.counts[topicKind{c.who.account, c.who.region, fifo}] >= topicLimit(fifo) {
		// SNS's quotas per account (the model's TopicLimitExceeded; its text is UNVERIFIED).
		return "", newError("TopicLimitExceeded", "Topic limit exceeded")
	}
	if t != nil {
		for k, v := range in.Attributes {
			if k == "FifoTopic" {
				continue
			}
			if got, ok := t.attrs[k]; !ok || got != normalizeTopicAttribute(k, v) {
				return "", errInvalidParameter("Attributes Reason: Topic already exists with different attributes")
			}
		}
		for _, tag := range in.Tags {
			if got, ok := t.tags[*tag.Key]; !ok || got != *tag.Value {
				return "", errInvalidParameter("Tags Reason: Topic already exists with different tags")
			}
		}
		return arn, nil
	}
	t = &topic{arn: arn, name: name, account: c.who.account, region: c.who.region, fifo: fifo,
		attrs: map[string]string{"Policy": DefaultPolicy(arn, c.who.account)}, tags: map[string]string{}}
	for k, v := range in.Attributes {
		if k != "FifoTopic" {
			t.attrs[k] = normalizeTopicAttribute(k, v)
		}
	}
	if fifo {
		t.attrs["ContentBasedDeduplication"] = cmpOr(t.attrs["ContentBasedDeduplication"], "false")
	}
	for _, tag := range in.Tags {
		t.tags[*tag.Key] = *tag.Value
	}
	t.dataProtection = aws.ToString(in.DataProtectionPolicy)
	t.compilePolicy()
	t.setDeliveryPolicy()
	s.topics[arn] = t
	s.topicOrderStale = true
	s.counts[topicKind{t.account, t.region, t.fifo}]++
	return arn, nil
}

// topicLimit is SNS's default quota of topics per account and region: 100,000 standard,
// 1,000 FIFO (SPEC-sns.md §4.1).
func topicLimit(fifo bool) int {
	if fifo {
		return 1000
	}
	return 100000
}

// topicKind counts topics per account, region (quotas are regional) and kind.
type topicKind struct {
	account, region string
	fifo            bool
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkTags applies SNS's rules to the tags of one call (SPEC-sns.md §4.4).
func checkTags(tags []types.Tag) *snsError {
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		k, v := aws.ToString(t.Key), aws.ToString(t.Value)
		if seen[k] {
			return errInvalidParameter("Duplicated keys are not allowed.")
		}
		seen[k] = true
		if k == "" || len(k) > 128 || len(v) > 256 {
			// The model's bounds; SNS's text is UNVERIFIED.
			return errInvalidParameter("Tags")
		}
	}
	return nil
}

// topicFor resolves the topic an operation names by its ARN (member: the input member that
// named it, for the error), in SNS's order of refusals (SPEC-sns.md §4.4, §10): a malformed
// ARN, another region, an unknown topic, a caller the topic's policy does not admit for
// action.
func (s *Fake) topicFor(c *call, arn, member, action string) (*topic, *snsError) {
	t, err := s.topicOrNil(c, arn, member)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, errTopicNotFound()
	}
	if err := s.authorizeTopic(c, t, action); err != nil {
		return nil, err
	}
	return t, nil
}

// topicOrNil is topicFor's checks of the ARN's form and region; a well-formed ARN of the
// caller's region naming no topic gives nil, nil.
func (s *Fake) topicOrNil(c *call, arn, member string) (*topic, *snsError) {
	if t := s.topics[arn]; t != nil && t.region == c.who.region {
		return t, nil // the common case, without parsing
	}
	parts := strings.Split(arn, ":")
	if len(parts) < 6 {
		return nil, errInvalidParameter(member + " Reason: An ARN must have at least 6 elements, not " + strconv.Itoa(len(parts)))
	}
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "sns" || parts[3] != c.who.region {
		return nil, errInvalidParameter(member)
	}
	return s.topics[arn], nil
}

// compilePolicy compiles the topic's Policy (which was checked when it was set).
func (t *topic) compilePolicy() {
	t.policy, _ = companion.CompileResourcePolicy(t.attrs["Policy"])
}

// authorizeTopic applies SNS's owner rule with the topic's Policy, decided by the fake's
// policy engine (SPEC-sns.md §10): the topic's own account acts unless the Policy
// explicitly denies it; another account's caller only if the Policy allows it
// SNS:<action> (the default policy does not: its AWS:SourceOwner condition is a key the
// engine has no value for, so it holds for no one). A refusal is AuthorizationError in
// IAM's format.
func (s *Fake) authorizeTopic(c *call, t *topic, action string) *snsError {
	d := companion.PolicyImplicitDeny
	if t.policy != nil {
		d = t.policy.Decide(companion.PolicyRequest{AccountID: c.who.account, PrincipalARN: c.who.principal, Action: policyAction(action), Resource: t.arn})
	}
	switch {
	case d == companion.PolicyExplicitDeny:
		return newError("AuthorizationError", "User: "+c.who.principal+" is not authorized to perform: SNS:"+action+
			" on resource: "+t.arn+" with an explicit deny in a resource-based policy")
	case c.who.account == t.account, d == companion.PolicyAllowed:
		return nil
	}
	return newError("AuthorizationError", "User: "+c.who.principal+" is not authorized to perform: SNS:"+action+
		" on resource: "+t.arn+" because no resource-based policy allows the SNS:"+action+" action")
}

// DeleteTopic deletes a topic with its subscriptions and tags; a well-formed ARN of the
// caller's region naming no topic is no error (SPEC-sns.md §4.4).
func (s *Fake) DeleteTopic(ctx context.Context, params *sns.DeleteTopicInput, optFns ...func(*sns.Options)) (out *sns.DeleteTopicOutput, err error) {
	if params == nil {
		params = &sns.DeleteTopicInput{}
	}
	c, err := s.begin(ctx, "DeleteTopic", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicOrNil(c, aws.ToString(params.TopicArn), "TopicArn")
	if e == nil && t != nil {
		e = s.authorizeTopic(c, t, "DeleteTopic")
	}
	if e != nil {
		return nil, c.fail(e)
	}
	if t != nil {
		for _, sub := range t.subs {
			s.dropSubscription(sub)
		}
		delete(s.topics, t.arn)
		s.topicOrderStale = true
		s.counts[topicKind{t.account, t.region, t.fifo}]--
	}
	return &sns.DeleteTopicOutput{}, nil
}

// GetTopicAttributes returns every attribute the topic has (SPEC-sns.md §4.2).
func (s *Fake) GetTopicAttributes(ctx context.Context, params *sns.GetTopicAttributesInput, optFns ...func(*sns.Options)) (out *sns.GetTopicAttributesOutput, err error) {
	if params == nil {
		params = &sns.GetTopicAttributesInput{}
	}
	c, err := s.begin(ctx, "GetTopicAttributes", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicFor(c, aws.ToString(params.TopicArn), "TopicArn", "GetTopicAttributes")
	if e != nil {
		return nil, c.fail(e)
	}
	return &sns.GetTopicAttributesOutput{Attributes: t.attributes()}, nil
}

func (t *topic) attributes() map[string]string {
	confirmed, pending := 0, 0
	for _, sub := range t.subs {
		if sub.pending {
			pending++
		} else {
			confirmed++
		}
	}
	a := maps.Clone(t.attrs)
	a["TopicArn"] = t.arn
	a["Owner"] = t.account
	a["EffectiveDeliveryPolicy"] = t.delivery.effective()
	a["SubscriptionsConfirmed"] = strconv.Itoa(confirmed)
	a["SubscriptionsPending"] = strconv.Itoa(pending)
	a["SubscriptionsDeleted"] = "0"
	a["DisplayName"] = t.attrs["DisplayName"]
	if t.fifo {
		a["FifoTopic"] = "true"
	}
	return a
}

// SetTopicAttributes sets one attribute of a topic; DeliveryPolicy, ArchivePolicy and
// DisplayName "" remove theirs (SPEC-sns.md §4.2).
func (s *Fake) SetTopicAttributes(ctx context.Context, params *sns.SetTopicAttributesInput, optFns ...func(*sns.Options)) (out *sns.SetTopicAttributesOutput, err error) {
	if params == nil {
		params = &sns.SetTopicAttributesInput{}
	}
	c, err := s.begin(ctx, "SetTopicAttributes", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicFor(c, aws.ToString(params.TopicArn), "TopicArn", "SetTopicAttributes")
	if e == nil {
		e = checkTopicAttribute("", aws.ToString(params.AttributeName), aws.ToString(params.AttributeValue), t.fifo)
	}
	if e != nil {
		return nil, c.fail(e)
	}
	name, v := *params.AttributeName, aws.ToString(params.AttributeValue)
	switch {
	case v == "" && name == "Policy":
		t.attrs[name] = DefaultPolicy(t.arn, t.account)
	case v == "" && name != "DisplayName":
		delete(t.attrs, name)
	default:
		t.attrs[name] = normalizeTopicAttribute(name, v)
	}
	switch name {
	case "Policy":
		t.compilePolicy()
	case "DeliveryPolicy":
		t.setDeliveryPolicy()
	}
	return &sns.SetTopicAttributesOutput{}, nil
}

// ListTopics lists the caller's topics of its region, by ARN, 100 a page.
func (s *Fake) ListTopics(ctx context.Context, params *sns.ListTopicsInput, optFns ...func(*sns.Options)) (out *sns.ListTopicsOutput, err error) {
	if params == nil {
		params = &sns.ListTopicsInput{}
	}
	c, err := s.begin(ctx, "ListTopics", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	var arns []string
	for arn, t := range s.topics {
		if t.account == c.who.account && t.region == c.who.region {
			arns = append(arns, arn)
		}
	}
	slices.Sort(arns)
	page, next, e := pageOf(arns, params.NextToken, topicPageSize)
	if e != nil {
		return nil, c.fail(e)
	}
	out = &sns.ListTopicsOutput{NextToken: next, Topics: []types.Topic{}}
	for _, arn := range page {
		out.Topics = append(out.Topics, types.Topic{TopicArn: aws.String(arn)})
	}
	return out, nil
}

// pageOf returns the page of keys (sorted) after the token, and the token of the next page
// (nil on the last). A token is the last key of its page in padded base64, which clients
// decode as SNS's (test_list_subscriptions_by_topic_pagination): opaque, and stable when
// keys come and go between pages. A token the fake did not make is "Invalid parameter:
// NextToken" (UNVERIFIED).
func pageOf(keys []string, token *string, size int) ([]string, *string, *snsError) {
	start := 0
	if token != nil && *token != "" {
		after, err := base64.StdEncoding.DecodeString(*token)
		if err != nil || len(after) == 0 {
			return nil, nil, errInvalidParameter("NextToken")
		}
		start, _ = slices.BinarySearch(keys, string(after)+"\x00")
	}
	end := min(start+size, len(keys))
	var next *string
	if end < len(keys) {
		next = aws.String(base64.StdEncoding.EncodeToString([]byte(keys[end-1])))
	}
	return keys[start:end], next, nil
}

// resourceFor resolves the topic a tag or data-protection operation names.
func (s *Fake) resourceFor(c *call, arn string) (*topic, *snsError) {
	t, err := s.topicOrNil(c, arn, "ResourceArn")
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, newError("ResourceNotFound", "Resource does not exist")
	}
	return t, s.authorizeTopic(c, t, "TagResource")
}

// TagResource adds or overwrites tags of a topic (at most 50).
func (s *Fake) TagResource(ctx context.Context, params *sns.TagResourceInput, optFns ...func(*sns.Options)) (out *sns.TagResourceOutput, err error) {
	if params == nil {
		params = &sns.TagResourceInput{}
	}
	c, err := s.begin(ctx, "TagResource", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.resourceFor(c, aws.ToString(params.ResourceArn))
	if e == nil {
		e = checkTags(params.Tags)
	}
	if e == nil {
		n := len(t.tags)
		for _, tag := range params.Tags {
			if _, ok := t.tags[*tag.Key]; !ok {
				n++
			}
		}
		if n > maxTopicTags {
			e = newError("TagLimitExceeded", "Could not complete request: tag quota of per resource exceeded")
		}
	}
	if e != nil {
		return nil, c.fail(e)
	}
	for _, tag := range params.Tags {
		t.tags[*tag.Key] = *tag.Value
	}
	return &sns.TagResourceOutput{}, nil
}

// UntagResource removes tags of a topic; keys it does not have are no error.
func (s *Fake) UntagResource(ctx context.Context, params *sns.UntagResourceInput, optFns ...func(*sns.Options)) (out *sns.UntagResourceOutput, err error) {
	if params == nil {
		params = &sns.UntagResourceInput{}
	}
	c, err := s.begin(ctx, "UntagResource", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.resourceFor(c, aws.ToString(params.ResourceArn))
	if e != nil {
		return nil, c.fail(e)
	}
	for _, k := range params.TagKeys {
		delete(t.tags, k)
	}
	return &sns.UntagResourceOutput{}, nil
}

// ListTagsForResource lists a topic's tags by key.
func (s *Fake) ListTagsForResource(ctx context.Context, params *sns.ListTagsForResourceInput, optFns ...func(*sns.Options)) (out *sns.ListTagsForResourceOutput, err error) {
	if params == nil {
		params = &sns.ListTagsForResourceInput{}
	}
	c, err := s.begin(ctx, "ListTagsForResource", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.resourceFor(c, aws.ToString(params.ResourceArn))
	if e != nil {
		return nil, c.fail(e)
	}
	out = &sns.ListTagsForResourceOutput{Tags: []types.Tag{}}
	for _, k := range slices.Sorted(maps.Keys(t.tags)) {
		out.Tags = append(out.Tags, types.Tag{Key: aws.String(k), Value: aws.String(t.tags[k])})
	}
	return out, nil
}

// PutDataProtectionPolicy stores a topic's data protection policy (JSON; "" removes it).
// The fake stores and returns it; it does not apply it to messages.
func (s *Fake) PutDataProtectionPolicy(ctx context.Context, params *sns.PutDataProtectionPolicyInput, optFns ...func(*sns.Options)) (out *sns.PutDataProtectionPolicyOutput, err error) {
	if params == nil {
		params = &sns.PutDataProtectionPolicyInput{}
	}
	c, err := s.begin(ctx, "PutDataProtectionPolicy", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicFor(c, aws.ToString(params.ResourceArn), "ResourceArn", "PutDataProtectionPolicy")
	if e == nil && (!isJSONOrEmpty(*params.DataProtectionPolicy) || len(*params.DataProtectionPolicy) > 30720) {
		e = errInvalidParameter("DataProtectionPolicy")
	}
	if e != nil {
		return nil, c.fail(e)
	}
	t.dataProtection = *params.DataProtectionPolicy
	return &sns.PutDataProtectionPolicyOutput{}, nil
}

// GetDataProtectionPolicy returns a topic's data protection policy ("" when it has none).
func (s *Fake) GetDataProtectionPolicy(ctx context.Context, params *sns.GetDataProtectionPolicyInput, optFns ...func(*sns.Options)) (out *sns.GetDataProtectionPolicyOutput, err error) {
	if params == nil {
		params = &sns.GetDataProtectionPolicyInput{}
	}
	c, err := s.begin(ctx, "GetDataProtectionPolicy", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicFor(c, aws.ToString(params.ResourceArn), "ResourceArn", "GetDataProtectionPolicy")
	if e != nil {
		return nil, c.fail(e)
	}
	return &sns.GetDataProtectionPolicyOutput{DataProtectionPolicy: aws.String(t.dataProtection)}, nil
}

// AddPermission adds a statement granting accounts actions on a topic to its Policy
// (SPEC-sns.md §4.4): Sid = Label, the accounts' root ARNs, the actions as SNS:<Action>.
// The document is written back with its keys in alphabetical order, as AWS re-serialises
// it.
func (s *Fake) AddPermission(ctx context.Context, params *sns.AddPermissionInput, optFns ...func(*sns.Options)) (out *sns.AddPermissionOutput, err error) {
	if params == nil {
		params = &sns.AddPermissionInput{}
	}
	c, err := s.begin(ctx, "AddPermission", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicFor(c, aws.ToString(params.TopicArn), "TopicArn", "AddPermission")
	if e != nil {
		return nil, c.fail(e)
	}
	doc, stmts := policyDocument(t.attrs["Policy"])
	label := *params.Label
	for _, st := range stmts {
		if m, ok := st.(map[string]any); ok && m["Sid"] == label {
			return nil, c.fail(errInvalidParameter("Statement already exists"))
		}
	}
	var actions, principals []any
	for _, a := range params.ActionName {
		i := slices.IndexFunc(defaultActions, func(d string) bool { return strings.EqualFold(d, a) })
		if i < 0 && !strings.EqualFold(a, "Receive") {
			return nil, c.fail(errInvalidParameter("Policy statement action out of service scope!"))
		}
		name := "Receive"
		if i >= 0 {
			name = defaultActions[i]
		}
		actions = append(actions, "SNS:"+name)
	}
	for _, acct := range params.AWSAccountId {
		principals = append(principals, "arn:"+partitionOf(t.region)+":iam::"+acct+":root")
	}
	if len(actions) == 0 || len(principals) == 0 {
		return nil, c.fail(errInvalidParameter("Policy statement action out of service scope!"))
	}
	st := map[string]any{"Sid": label, "Effect": "Allow", "Principal": map[string]any{"AWS": oneOrList(principals)},
		"Action": oneOrList(actions), "Resource": t.arn}
	doc["Statement"] = append(stmts, st)
	t.attrs["Policy"] = marshalSorted(doc)
	t.compilePolicy()
	return &sns.AddPermissionOutput{}, nil
}

// RemovePermission removes the statement with the label from a topic's Policy. A label the
// Policy does not have is no error (UNVERIFIED, SPEC-sns.md §4.4).
func (s *Fake) RemovePermission(ctx context.Context, params *sns.RemovePermissionInput, optFns ...func(*sns.Options)) (out *sns.RemovePermissionOutput, err error) {
	if params == nil {
		params = &sns.RemovePermissionInput{}
	}
	c, err := s.begin(ctx, "RemovePermission", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicFor(c, aws.ToString(params.TopicArn), "TopicArn", "RemovePermission")
	if e != nil {
		return nil, c.fail(e)
	}
	doc, stmts := policyDocument(t.attrs["Policy"])
	kept := slices.DeleteFunc(slices.Clone(stmts), func(st any) bool {
		m, ok := st.(map[string]any)
		return ok && m["Sid"] == *params.Label
	})
	if len(kept) != len(stmts) {
		doc["Statement"] = kept
		t.attrs["Policy"] = marshalSorted(doc)
		t.compilePolicy()
	}
	return &sns.RemovePermissionOutput{}, nil
}

// policyDocument parses a stored Policy (always a JSON object) and its statements.
func policyDocument(text string) (map[string]any, []any) {
	var doc map[string]any
	if json.Unmarshal([]byte(text), &doc) != nil || doc == nil {
		doc = map[string]any{}
	}
	switch st := doc["Statement"].(type) {
	case []any:
		return doc, st
	case map[string]any:
		return doc, []any{st}
	}
	return doc, nil
}

func oneOrList(v []any) any {
	if len(v) == 1 {
		return v[0]
	}
	return v
}

// marshalSorted writes v compactly, object keys sorted, without HTML escapes.
func marshalSorted(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
