package snsfake

import (
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"

	"github.com/sqsfake/sqsfake/internal/eventpattern"
)

// subscription is one subscription of a topic.
type subscription struct {
	arn      string
	t        *topic
	protocol string
	endpoint string
	owner    string // the subscriber's account
	prin     string // the subscriber's principal ARN
	pending  bool
	token    string // its confirmation token, if it had to be confirmed (tokens.go)
	tokenNum uint64 // the token's number
	tokenAt  int64  // when the token was made, on the fake's clock: it is valid for 2 days
	authed   bool   // ConfirmationWasAuthenticated

	raw      bool
	filter   string // FilterPolicy text; "" = none
	scope    string // FilterPolicyScope as set; "" = MessageAttributes by default
	compiled *eventpattern.Pattern
	redrive  string // RedrivePolicy text
	dlqArn   string
	extra    map[string]string   // DeliveryPolicy (normalised), SubscriptionRoleArn, ReplayPolicy
	delivery *subscriptionPolicy // DeliveryPolicy, parsed (deliverypolicy.go); nil: none
	queue    queueRef            // sqs: the queue the endpoint names
	dlq      queueRef

	throttleWindow int64    // http/https: the second of the fake's clock throttleCount counts in
	throttleCount  int      // attempts made in it (the throttle policy, httpdelivery.go)
	endpointKey    string   // http/https: the endpoint as handlerFor compares it, once made
	endpointURL    *url.URL // and parsed
	endpointErr    error
}

// queueRef is a queue named by ARN: its URL for SendMessage, and whether it is FIFO.
type queueRef struct {
	arn, url, account, region, name string
	fifo                            bool
}

// parseQueueARN reads an SQS queue ARN as AWS names a queue —
// arn:<partition>:sqs:<region>:<12-digit account>:<queue name>, the partition the region's,
// the name one SQS would accept (1–80 of [A-Za-z0-9_-], a FIFO queue's ending in .fifo) —
// and reports false for anything else, which SNS refuses as an sqs endpoint ("Invalid
// parameter: SQS endpoint ARN") and as a deadLetterTargetArn (SPEC-sns.md §5.1, §5.3). The
// queue a delivery goes to is the one these fields name: its URL is made of them, and no
// other text of the ARN reaches SQS.
func parseQueueARN(arn string) (queueRef, bool) {
	p := strings.Split(arn, ":")
	if len(p) != 6 || p[0] != "arn" || p[2] != "sqs" || !isRegionName(p[3]) || p[1] != partitionOf(p[3]) ||
		!isAccountID(p[4]) || !validQueueName(p[5]) {
		return queueRef{}, false
	}
	host := "sqs." + p[3] + ".amazonaws.com"
	if p[1] == "aws-cn" {
		host += ".cn"
	}
	return queueRef{arn: arn, url: "https://" + host + "/" + p[4] + "/" + p[5], account: p[4], region: p[3], name: p[5],
		fifo: strings.HasSuffix(p[5], ".fifo")}, true
}

// validQueueName reports whether name is a queue name SQS accepts: 1–80 characters of
// [A-Za-z0-9_-], a FIFO queue's ending in .fifo (counted in the 80).
func validQueueName(name string) bool {
	base := strings.TrimSuffix(name, ".fifo")
	if base == "" || len(name) > 80 {
		return false
	}
	for i := 0; i < len(base); i++ {
		if !isTopicNameChar(base[i]) {
			return false
		}
	}
	return true
}

// isRegionName reports whether s has a region's form, as the queue fake reads one: lower-case
// words and a number joined by hyphens, the first word of two letters or more (us-east-1,
// us-gov-west-1, eusc-de-east-1), at most 32 characters.
func isRegionName(s string) bool {
	words := strings.Split(s, "-")
	if len(s) > 32 || len(words) < 2 || len(words[0]) < 2 {
		return false
	}
	for i, w := range words {
		last := i == len(words)-1
		if w == "" {
			return false
		}
		for j := 0; j < len(w); j++ {
			c := w[j]
			if last && !(c >= '0' && c <= '9') || !last && !(c >= 'a' && c <= 'z') {
				return false
			}
		}
	}
	return true
}

const subscriptionPageSize = 100

// pendingARN is what Subscribe answers for a subscription waiting for its confirmation, and
// what the lists show as its ARN (SPEC-sns.md §3).
const (
	pendingARN  = "pending confirmation"
	pendingList = "PendingConfirmation"
)

var (
	smsEndpoint    = regexp.MustCompile(`^\+?[0-9]{5,15}$`)
	emailEndpoint  = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
	lambdaEndpoint = regexp.MustCompile(`^arn:aws[a-z-]*:lambda:[a-z0-9-]+:[0-9]{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$`)
)

// checkEndpoint applies SNS's rule for protocol's endpoint (SPEC-sns.md §5.1) and says
// whether the subscription starts confirmed.
func checkEndpoint(protocol, endpoint string, fifoTopic bool) *snsError {
	switch protocol {
	case "sqs":
		return nil // checked by the caller, which needs the queue
	case "http", "https":
		if !strings.HasPrefix(strings.ToLower(endpoint), protocol+"://") {
			return errInvalidParameter("Endpoint must match the specified protocol")
		}
	case "email", "email-json":
		if !emailEndpoint.MatchString(endpoint) {
			return errInvalidParameter("Email address")
		}
	case "sms":
		if !smsEndpoint.MatchString(endpoint) {
			return newError("InvalidParameter", "Invalid SMS endpoint: "+echo(endpoint))
		}
	case "lambda":
		if !lambdaEndpoint.MatchString(endpoint) {
			return errInvalidParameter("Endpoint")
		}
	case "application", "firehose":
		if p := strings.Split(endpoint, ":"); len(p) < 6 || p[0] != "arn" {
			return errInvalidParameter("Endpoint")
		}
	default:
		return errInvalidParameter("Amazon SNS does not support this protocol string: " + echo(protocol))
	}
	if fifoTopic {
		return errInvalidParameter("Invalid protocol type: " + echo(protocol))
	}
	return nil
}

// Subscribe subscribes an endpoint to a topic (SPEC-sns.md §5). An sqs subscription of a
// queue of the caller's own account is confirmed at once; one of another account's queue
// is pending, and a SubscriptionConfirmation is delivered into the queue, until
// ConfirmSubscription with its token. An http or https subscription is pending, and its
// SubscriptionConfirmation is POSTed to the endpoint before Subscribe returns (with
// HTTPDelivery.Network, an endpoint on a host the fake may not reach is refused, "Invalid
// parameter: Unreachable Endpoint"). email and email-json subscriptions stay pending (the
// fake sends them nothing); sms, lambda, application and firehose ones are confirmed, and
// receive nothing.
func (s *Fake) Subscribe(ctx context.Context, params *sns.SubscribeInput, optFns ...func(*sns.Options)) (out *sns.SubscribeOutput, err error) {
	if params == nil {
		params = &sns.SubscribeInput{}
	}
	c, err := s.begin(ctx, "Subscribe", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	defer s.runDue() // an http/https subscription's SubscriptionConfirmation, at once
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, e := s.subscribe(ctx, c, params)
	if e != nil {
		return nil, c.fail(e)
	}
	arn := sub.arn
	if sub.pending && !params.ReturnSubscriptionArn {
		arn = pendingARN
	}
	return &sns.SubscribeOutput{SubscriptionArn: aws.String(arn)}, nil
}

func (s *Fake) subscribe(ctx context.Context, c *call, in *sns.SubscribeInput) (*subscription, *snsError) {
	t, e := s.topicFor(c, aws.ToString(in.TopicArn), "TopicArn", "Subscribe")
	if e != nil {
		return nil, e
	}
	protocol, endpoint := *in.Protocol, aws.ToString(in.Endpoint)
	if e := checkEndpoint(protocol, endpoint, t.fifo && protocol != "sqs"); e != nil {
		return nil, e
	}
	if protocol == "http" || protocol == "https" {
		if e := s.endpoints.reachable(endpoint); e != nil {
			return nil, e
		}
	}
	var q queueRef
	if protocol == "sqs" {
		var ok bool
		if q, ok = parseQueueARN(endpoint); !ok {
			return nil, errInvalidParameter("SQS endpoint ARN")
		}
		if q.fifo && !t.fifo {
			return nil, errInvalidParameter("Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics")
		}
	}
	probe := &subscription{t: t, protocol: protocol, endpoint: endpoint, queue: q}
	// The scope first: the filter policy is compiled for it.
	keys := slices.SortedFunc(maps.Keys(in.Attributes), func(a, b string) int {
		return cmp.Or(cmp.Compare(scopeLast(a), scopeLast(b)), cmp.Compare(a, b))
	})
	for _, k := range keys {
		if e := s.setSubscriptionAttribute(probe, k, in.Attributes[k], "Attributes Reason: "); e != nil {
			return nil, e
		}
	}
	if old := t.byEndpoint[endpointKey(protocol, endpoint)]; old != nil {
		if !sameAttributes(old, probe, in.Attributes) {
			return nil, errInvalidParameter("Attributes Reason: Subscription already exists with different attributes")
		}
		return old, nil
	}
	if len(t.subs) >= subscriptionLimit(t.fifo) {
		return nil, newError("SubscriptionLimitExceeded", "Subscription limit exceeded")
	}
	if e := s.countFilter(t, c.who.account, false, probe.filter != ""); e != nil {
		return nil, e
	}
	s.nextSub++
	sub := probe
	sub.arn = t.arn + ":" + s.uuid(streamSubscription, s.nextSub, 4)
	sub.owner, sub.prin = c.who.account, c.who.principal
	switch protocol {
	case "sqs":
		sub.pending = q.account != c.who.account
	case "http", "https", "email", "email-json":
		sub.pending = true
	}
	sub.authed = !sub.pending
	t.subs = append(t.subs, sub)
	if t.byEndpoint == nil {
		t.byEndpoint = map[string]*subscription{}
	}
	t.byEndpoint[endpointKey(protocol, endpoint)] = sub
	s.subs[sub.arn] = sub
	if sub.pending {
		s.issueToken(sub)
		switch protocol {
		case "sqs":
			s.sendConfirmation(ctx, sub)
		case "http", "https":
			s.sendHTTPConfirmation(sub)
		}
	}
	return sub, nil
}

// sameAttributes reports whether the attributes a repeated Subscribe sends equal the
// stored subscription's, or its defaults (SPEC-sns.md §5.1).
func sameAttributes(old, sent *subscription, attrs map[string]string) bool {
	for k := range attrs {
		switch k {
		case "RawMessageDelivery":
			if old.raw != sent.raw {
				return false
			}
		case "FilterPolicy":
			if old.filter != sent.filter {
				return false
			}
		case "FilterPolicyScope":
			if old.scopeOrDefault() != sent.scopeOrDefault() {
				return false
			}
		case "RedrivePolicy":
			if old.redrive != sent.redrive {
				return false
			}
		default:
			if old.extra[k] != sent.extra[k] {
				return false
			}
		}
	}
	return true
}

func scopeLast(k string) int {
	if k == "FilterPolicyScope" {
		return 0
	}
	return 1
}

func (sub *subscription) scopeOrDefault() string { return cmpOr(sub.scope, "MessageAttributes") }

// setSubscriptionAttribute checks and applies one attribute to sub, the refusals prefixed
// by prefix (Subscribe: "Attributes Reason: ", SetSubscriptionAttributes: ""), SNS's texts
// (SPEC-sns.md §5.3, §8.4). Nothing is changed when it refuses.
func (s *Fake) setSubscriptionAttribute(sub *subscription, name, v, prefix string) *snsError {
	if tooLong(name, v) {
		return errInvalidParameter(prefix + name + ": Invalid value [" + echo(v) + "]")
	}
	switch name {
	case "RawMessageDelivery":
		switch sub.protocol {
		case "sqs", "http", "https", "firehose":
		default:
			return errInvalidParameter("Delivery protocol [" + sub.protocol + "] does not support raw message delivery.")
		}
		if !isBool(v) {
			return errInvalidParameter(prefix + "RawMessageDelivery: Invalid value [" + echo(v) + "]. Must be true or false.")
		}
		sub.raw = strings.EqualFold(v, "true")
	case "FilterPolicy":
		if v == "" {
			sub.filter, sub.compiled = "", nil
			return nil
		}
		p, err := eventpattern.CompileFilterPolicy(v, sub.scopeOrDefault() == "MessageBody")
		if err != nil {
			return errInvalidParameter(prefix + echo(err.Error()))
		}
		sub.filter, sub.compiled = v, p
	case "FilterPolicyScope":
		if v != "MessageAttributes" && v != "MessageBody" {
			return errInvalidParameter(prefix + "FilterPolicyScope: Invalid value [" + echo(v) + "]. Please use either MessageBody or MessageAttributes")
		}
		if sub.filter != "" {
			p, err := eventpattern.CompileFilterPolicy(sub.filter, v == "MessageBody")
			if err != nil {
				return errInvalidParameter(prefix + echo(err.Error()))
			}
			sub.compiled = p
		}
		sub.scope = v
	case "RedrivePolicy":
		if v == "" {
			sub.redrive, sub.dlqArn, sub.dlq = "", "", queueRef{}
			return nil
		}
		var rp struct {
			DeadLetterTargetArn *string `json:"deadLetterTargetArn"`
		}
		// SNS reads it with Jackson: text that is not JSON is refused in Jackson's words
		// [AWS rec 2025-10, test_validate_set_sub_attributes]; JSON that is no object names
		// no deadLetterTargetArn (INF).
		if msg := eventpattern.JSONError(v); msg != "" {
			return errInvalidParameter(prefix + "RedrivePolicy: failed to parse JSON. " + echo(msg))
		}
		_ = json.Unmarshal([]byte(v), &rp)
		dlq, ok := parseQueueARN(aws.ToString(rp.DeadLetterTargetArn))
		if !ok {
			return errInvalidParameter(prefix + "RedrivePolicy: deadLetterTargetArn is an invalid arn")
		}
		if sub.t.fifo && sub.queue.fifo && !dlq.fifo {
			return errInvalidParameter(prefix + "RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic.")
		}
		sub.redrive, sub.dlqArn, sub.dlq = v, dlq.arn, dlq
	case "DeliveryPolicy":
		if sub.protocol != "http" && sub.protocol != "https" {
			return errInvalidParameter(prefix + "DeliveryPolicy")
		}
		if v == "" {
			sub.delivery = nil
			sub.setExtra(name, "")
			return nil
		}
		sp, e := parseSubscriptionPolicy(prefix, v)
		if e != nil {
			return e
		}
		sub.delivery = sp
		sub.setExtra(name, sp.String())
	case "SubscriptionRoleArn":
		if sub.protocol != "firehose" {
			return errInvalidParameter(prefix + "SubscriptionRoleArn")
		}
		sub.setExtra(name, v)
	case "ReplayPolicy":
		if !sub.t.fifo || !isJSONOrEmpty(v) {
			return errInvalidParameter(prefix + "ReplayPolicy")
		}
		sub.setExtra(name, v)
	default:
		return errInvalidParameter(prefix + "AttributeName")
	}
	return nil
}

func (sub *subscription) setExtra(k, v string) {
	if sub.extra == nil {
		sub.extra = map[string]string{}
	}
	if v == "" {
		delete(sub.extra, k)
		return
	}
	sub.extra[k] = v
}

// attributes are GetSubscriptionAttributes' answer (SPEC-sns.md §5.3).
func (sub *subscription) attributes() map[string]string {
	a := map[string]string{
		"SubscriptionArn":              sub.arn,
		"TopicArn":                     sub.t.arn,
		"Endpoint":                     sub.endpoint,
		"Protocol":                     sub.protocol,
		"Owner":                        sub.owner,
		"PendingConfirmation":          strconv.FormatBool(sub.pending),
		"ConfirmationWasAuthenticated": strconv.FormatBool(sub.authed),
		"SubscriptionPrincipal":        sub.prin,
		"RawMessageDelivery":           strconv.FormatBool(sub.raw),
	}
	if sub.filter != "" {
		a["FilterPolicy"] = sub.filter
		a["FilterPolicyScope"] = sub.scopeOrDefault()
	}
	if sub.redrive != "" {
		a["RedrivePolicy"] = sub.redrive
	}
	maps.Copy(a, sub.extra)
	if sub.protocol == "http" || sub.protocol == "https" {
		a["EffectiveDeliveryPolicy"] = effectiveSubscriptionPolicy(sub.delivery, sub.t.delivery)
	}
	return a
}

// subscriptionFor resolves a subscription ARN (SPEC-sns.md §5.4): malformed → InvalidParameter,
// a 6-part ARN that is not a subscription's → "SubscriptionId", unknown → nil.
func (s *Fake) subscriptionFor(c *call, arn string) (*subscription, *snsError) {
	parts := strings.Split(arn, ":")
	if len(parts) < 6 {
		return nil, errInvalidParameter("SubscriptionArn Reason: An ARN must have at least 6 elements, not " + strconv.Itoa(len(parts)))
	}
	if len(parts) != 7 || parts[0] != "arn" || parts[2] != "sns" || len(parts[6]) != 36 {
		return nil, errInvalidParameter("SubscriptionId")
	}
	return s.subs[arn], nil
}

// mayManage reports whether the caller may read or change sub: the subscriber's or the
// topic owner's account.
func mayManage(c *call, sub *subscription) *snsError {
	if c.who.account == sub.owner || c.who.account == sub.t.account {
		return nil
	}
	return newError("AuthorizationError", "Not authorized to access this subscription")
}

// managedSubscription returns the subscription an ARN names, for a caller who may manage
// it: NotFound when there is none, AuthorizationError when the caller may not.
func (s *Fake) managedSubscription(c *call, arn string) (*subscription, *snsError) {
	sub, e := s.subscriptionFor(c, arn)
	if e == nil && sub == nil {
		e = errSubscriptionNotFound()
	}
	if e == nil {
		e = mayManage(c, sub)
	}
	return sub, e
}

// GetSubscriptionAttributes returns a subscription's attributes.
func (s *Fake) GetSubscriptionAttributes(ctx context.Context, params *sns.GetSubscriptionAttributesInput, optFns ...func(*sns.Options)) (out *sns.GetSubscriptionAttributesOutput, err error) {
	if params == nil {
		params = &sns.GetSubscriptionAttributesInput{}
	}
	c, err := s.begin(ctx, "GetSubscriptionAttributes", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, e := s.managedSubscription(c, *params.SubscriptionArn)
	if e != nil {
		return nil, c.fail(e)
	}
	return &sns.GetSubscriptionAttributesOutput{Attributes: sub.attributes()}, nil
}

// SetSubscriptionAttributes sets one attribute of a subscription: RawMessageDelivery,
// FilterPolicy, FilterPolicyScope, RedrivePolicy, DeliveryPolicy (http/https),
// SubscriptionRoleArn (firehose) or ReplayPolicy (FIFO topics). A new filter policy applies
// to the next publish (AWS: within 15 minutes).
func (s *Fake) SetSubscriptionAttributes(ctx context.Context, params *sns.SetSubscriptionAttributesInput, optFns ...func(*sns.Options)) (out *sns.SetSubscriptionAttributesOutput, err error) {
	if params == nil {
		params = &sns.SetSubscriptionAttributesInput{}
	}
	c, err := s.begin(ctx, "SetSubscriptionAttributes", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, e := s.managedSubscription(c, *params.SubscriptionArn)
	if e == nil {
		// On a copy, so that a refusal changes nothing.
		cp := *sub
		cp.extra = maps.Clone(sub.extra)
		if e = s.setSubscriptionAttribute(&cp, *params.AttributeName, aws.ToString(params.AttributeValue), ""); e == nil {
			e = s.countFilter(sub.t, sub.owner, sub.filter != "", cp.filter != "")
		}
		if e == nil {
			*sub = cp
		}
	}
	if e != nil {
		return nil, c.fail(e)
	}
	return &sns.SetSubscriptionAttributesOutput{}, nil
}

// Unsubscribe deletes a subscription; an unknown well-formed ARN is no error (SPEC-sns.md
// §5.4). The subscriber's and the topic owner's accounts may.
func (s *Fake) Unsubscribe(ctx context.Context, params *sns.UnsubscribeInput, optFns ...func(*sns.Options)) (out *sns.UnsubscribeOutput, err error) {
	if params == nil {
		params = &sns.UnsubscribeInput{}
	}
	c, err := s.begin(ctx, "Unsubscribe", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, e := s.subscriptionFor(c, *params.SubscriptionArn)
	if e == nil && sub != nil {
		e = mayManage(c, sub)
	}
	if e != nil {
		return nil, c.fail(e)
	}
	if sub != nil {
		s.dropSubscription(sub)
		sub.t.subs = slices.DeleteFunc(sub.t.subs, func(x *subscription) bool { return x == sub })
	}
	return &sns.UnsubscribeOutput{}, nil
}

// The quotas of subscriptions and filter policies, as AWS documents them: a standard topic
// has at most 12,500,000 subscriptions and a FIFO topic 100 (the SNS quotas page; the
// FIFO topics guide); a topic has at most 200 subscriptions with a filter policy, and an
// account (the subscriber's) 10,000 — "this doesn't stop SQS subscriptions from being made
// with Subscribe, but attaching a filter policy with Subscribe or SetSubscriptionAttributes
// fails" (the filter policy constraints guide). The refusals' codes are the model's,
// SubscriptionLimitExceeded and FilterPolicyLimitExceeded (403); their texts are
// UNVERIFIED.
const (
	maxStandardSubscriptions = 12_500_000
	maxFIFOSubscriptions     = 100
	maxTopicFilterPolicies   = 200
	maxAccountFilterPolicies = 10_000
)

func subscriptionLimit(fifo bool) int {
	if fifo {
		return maxFIFOSubscriptions
	}
	return maxStandardSubscriptions
}

// endpointKey is how a topic finds its subscription of an endpoint (Subscribe's idempotency).
func endpointKey(protocol, endpoint string) string { return protocol + "\x00" + endpoint }

// countFilter accounts a subscription of t by account going from having a filter policy (had)
// to having one (has), refusing it when a new one is over the quotas. s.mu is held.
func (s *Fake) countFilter(t *topic, account string, had, has bool) *snsError {
	switch {
	case has && !had:
		if t.filters >= maxTopicFilterPolicies || s.filters[account] >= maxAccountFilterPolicies {
			return newError("FilterPolicyLimitExceeded", "Filter policy limit exceeded")
		}
		t.filters++
		s.filters[account]++
	case had && !has:
		t.filters--
		if s.filters[account]--; s.filters[account] <= 0 {
			delete(s.filters, account)
		}
	}
	return nil
}

// dropSubscription forgets sub and its token (its topic's list is the caller's to change).
func (s *Fake) dropSubscription(sub *subscription) {
	delete(s.subs, sub.arn)
	delete(sub.t.byEndpoint, endpointKey(sub.protocol, sub.endpoint))
	_ = s.countFilter(sub.t, sub.owner, sub.filter != "", false)
	if sub.token != "" {
		delete(s.tokens, sub.tokenNum)
	}
}

// ConfirmSubscription confirms a pending subscription by its token (SPEC-sns.md §5.2); a
// confirmed one answers its ARN again.
func (s *Fake) ConfirmSubscription(ctx context.Context, params *sns.ConfirmSubscriptionInput, optFns ...func(*sns.Options)) (out *sns.ConfirmSubscriptionOutput, err error) {
	if params == nil {
		params = &sns.ConfirmSubscriptionInput{}
	}
	c, err := s.begin(ctx, "ConfirmSubscription", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	arn, e := s.confirm(c, *params.TopicArn, *params.Token, true)
	if e != nil {
		return nil, c.fail(e)
	}
	return &sns.ConfirmSubscriptionOutput{SubscriptionArn: aws.String(arn)}, nil
}

// ListSubscriptions lists the caller's own subscriptions, 100 a page.
func (s *Fake) ListSubscriptions(ctx context.Context, params *sns.ListSubscriptionsInput, optFns ...func(*sns.Options)) (out *sns.ListSubscriptionsOutput, err error) {
	if params == nil {
		params = &sns.ListSubscriptionsInput{}
	}
	c, err := s.begin(ctx, "ListSubscriptions", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	byKey := map[string]*subscription{}
	for arn, sub := range s.subs {
		if sub.owner == c.who.account && sub.t.region == c.who.region {
			keys = append(keys, arn)
			byKey[arn] = sub
		}
	}
	slices.Sort(keys)
	page, next, e := pageOf(keys, params.NextToken, subscriptionPageSize)
	if e != nil {
		return nil, c.fail(e)
	}
	out = &sns.ListSubscriptionsOutput{NextToken: next, Subscriptions: []types.Subscription{}}
	for _, k := range page {
		out.Subscriptions = append(out.Subscriptions, byKey[k].listed())
	}
	return out, nil
}

// ListSubscriptionsByTopic lists a topic's subscriptions, 100 a page.
func (s *Fake) ListSubscriptionsByTopic(ctx context.Context, params *sns.ListSubscriptionsByTopicInput, optFns ...func(*sns.Options)) (out *sns.ListSubscriptionsByTopicOutput, err error) {
	if params == nil {
		params = &sns.ListSubscriptionsByTopicInput{}
	}
	c, err := s.begin(ctx, "ListSubscriptionsByTopic", params, optFns)
	if err != nil {
		return nil, err
	}
	defer endCall(ctx, c, &out, &err)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, e := s.topicFor(c, *params.TopicArn, "TopicArn", "ListSubscriptionsByTopic")
	if e != nil {
		return nil, c.fail(e)
	}
	keys := make([]string, 0, len(t.subs))
	byKey := map[string]*subscription{}
	for _, sub := range t.subs {
		keys = append(keys, sub.arn)
		byKey[sub.arn] = sub
	}
	slices.Sort(keys)
	page, next, e := pageOf(keys, params.NextToken, subscriptionPageSize)
	if e != nil {
		return nil, c.fail(e)
	}
	out = &sns.ListSubscriptionsByTopicOutput{NextToken: next, Subscriptions: []types.Subscription{}}
	for _, k := range page {
		out.Subscriptions = append(out.Subscriptions, byKey[k].listed())
	}
	return out, nil
}

func (sub *subscription) listed() types.Subscription {
	arn := sub.arn
	if sub.pending {
		arn = pendingList
	}
	return types.Subscription{SubscriptionArn: aws.String(arn), Owner: aws.String(sub.owner), Protocol: aws.String(sub.protocol),
		Endpoint: aws.String(sub.endpoint), TopicArn: aws.String(sub.t.arn)}
}
