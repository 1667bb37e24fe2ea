package snsfake

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// DeliveryPolicy: how SNS retries, throttles and shapes its POSTs to an HTTP/S endpoint
// (SPEC-sns.md §14). A topic's DeliveryPolicy attribute has an "http" object of defaults
// (defaultHealthyRetryPolicy, disableSubscriptionOverrides, defaultThrottlePolicy,
// defaultRequestPolicy); a subscription's has healthyRetryPolicy, throttlePolicy,
// requestPolicy (and the legacy sicklyRetryPolicy and guaranteed, kept and shown, not
// applied). Both are checked when set, stored normalised as AWS stores them, and completed
// into EffectiveDeliveryPolicy: the subscription's policy, else the topic's (the topic's
// always when it sets disableSubscriptionOverrides), else SNS's default — 3 retries, 20
// seconds apart.

// RetryPolicy is an HTTP/S retry policy (healthyRetryPolicy, or a topic's
// defaultHealthyRetryPolicy) as SNS completes it: delays in whole seconds, counts of
// retries per phase. NumRetries counts them all; the backoff phase has what the other three
// leave.
type RetryPolicy struct {
	MinDelayTarget     int    `json:"minDelayTarget"`
	MaxDelayTarget     int    `json:"maxDelayTarget"`
	NumRetries         int    `json:"numRetries"`
	NumMaxDelayRetries int    `json:"numMaxDelayRetries"`
	NumNoDelayRetries  int    `json:"numNoDelayRetries"`
	NumMinDelayRetries int    `json:"numMinDelayRetries"`
	BackoffFunction    string `json:"backoffFunction"`
}

// DefaultRetryPolicy is SNS's retry policy for HTTP/S endpoints when neither the
// subscription nor the topic sets one: 3 retries, 20 seconds apart (SPEC-sns.md §4.3).
var DefaultRetryPolicy = RetryPolicy{MinDelayTarget: 20, MaxDelayTarget: 20, NumRetries: 3, BackoffFunction: "linear"}

// The backoff functions SNS offers.
const (
	BackoffLinear      = "linear"
	BackoffArithmetic  = "arithmetic"
	BackoffGeometric   = "geometric"
	BackoffExponential = "exponential"
)

// Limits of a retry policy (SPEC-sns.md §14.5).
const (
	maxPolicyRetries = 100
	maxDelayTarget   = 3600
	maxRetryTime     = 3600 * time.Second // the total of a policy's delays
	// DefaultContentType is the Content-Type of SNS's POSTs unless a request policy says
	// otherwise.
	DefaultContentType = "text/plain; charset=UTF-8"
)

// Phase is the phase of a retry policy an attempt belongs to.
type Phase uint8

// The phases: the first attempt, then the retries of the four phases of a retry policy.
const (
	// PhaseInitial is the first attempt, at the publish (or Subscribe) instant.
	PhaseInitial Phase = iota + 1
	// PhaseImmediate: numNoDelayRetries retries, at once.
	PhaseImmediate
	// PhasePreBackoff: numMinDelayRetries retries, minDelayTarget apart.
	PhasePreBackoff
	// PhaseBackoff: the retries the other phases leave, from minDelayTarget to
	// maxDelayTarget by the backoff function.
	PhaseBackoff
	// PhasePostBackoff: numMaxDelayRetries retries, maxDelayTarget apart.
	PhasePostBackoff
)

// String names the phase as SNS's documentation does.
func (p Phase) String() string {
	switch p {
	case PhaseInitial:
		return "initial"
	case PhaseImmediate:
		return "immediate"
	case PhasePreBackoff:
		return "pre-backoff"
	case PhaseBackoff:
		return "backoff"
	case PhasePostBackoff:
		return "post-backoff"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// MarshalText writes the phase's name, as String does.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Retry is one retry of a retry policy: its number (1 for the first retry), its phase, and
// how long after the previous attempt ended it is made.
type Retry struct {
	N     int
	Phase Phase
	Delay time.Duration
}

// Retries returns the retries the policy makes after a failed first attempt, in order. SNS
// adds jitter to its delays; the fake does not, so that the same policy gives the same
// instants run after run. The backoff phase's delays go from MinDelayTarget (its first
// retry) to MaxDelayTarget (its last) by the policy's function, over x = (i-1)/(n-1) for its
// i-th of n retries (SNS publishes only a graph of them; these are the fake's choice,
// SPEC-sns.md §14.4):
//
//	linear       min + (max-min)·x
//	arithmetic   min + (max-min)·x·(1 + (n-1)·x)/n  (the increments grow by a constant)
//	geometric    min·(max/min)^x                     (a constant ratio between delays)
//	exponential  min + (max-min)·(2^((n-1)·x) - 1)/(2^(n-1) - 1)  (the increments double)
//
// A backoff phase of one retry waits MinDelayTarget. Delays are kept to the millisecond.
func (p RetryPolicy) Retries() []Retry {
	out := make([]Retry, 0, max(p.NumRetries, 0))
	for k := 1; k <= p.NumRetries; k++ {
		out = append(out, p.retry(k))
	}
	return out
}

// retry is the policy's k-th retry (k ≥ 1).
func (p RetryPolicy) retry(k int) Retry {
	backoff := p.NumRetries - p.NumNoDelayRetries - p.NumMinDelayRetries - p.NumMaxDelayRetries
	minD, maxD := time.Duration(p.MinDelayTarget)*time.Second, time.Duration(p.MaxDelayTarget)*time.Second
	switch {
	case k <= p.NumNoDelayRetries:
		return Retry{N: k, Phase: PhaseImmediate}
	case k <= p.NumNoDelayRetries+p.NumMinDelayRetries:
		return Retry{N: k, Phase: PhasePreBackoff, Delay: minD}
	case k <= p.NumNoDelayRetries+p.NumMinDelayRetries+backoff:
		i := k - p.NumNoDelayRetries - p.NumMinDelayRetries
		return Retry{N: k, Phase: PhaseBackoff, Delay: backoffDelay(p.BackoffFunction, i, backoff, p.MinDelayTarget, p.MaxDelayTarget)}
	}
	return Retry{N: k, Phase: PhasePostBackoff, Delay: maxD}
}

// backoffDelay is the delay of the i-th of n retries of a backoff phase from lo to hi
// seconds (Retries).
func backoffDelay(fn string, i, n, lo, hi int) time.Duration {
	if n <= 1 || lo == hi {
		return time.Duration(lo) * time.Second
	}
	minS, maxS := float64(lo), float64(hi)
	x := float64(i-1) / float64(n-1)
	var s float64
	switch fn {
	case BackoffArithmetic:
		s = minS + (maxS-minS)*x*(1+float64(n-1)*x)/float64(n)
	case BackoffGeometric:
		s = minS * math.Pow(maxS/minS, x)
	case BackoffExponential:
		s = minS + (maxS-minS)*(math.Exp2(float64(n-1)*x)-1)/(math.Exp2(float64(n-1))-1)
	default:
		s = minS + (maxS-minS)*x
	}
	return time.Duration(math.Round(s*1000)) * time.Millisecond
}

// TotalRetryTime is the sum of the policy's delays, which SNS bounds at 3,600 seconds.
func (p RetryPolicy) TotalRetryTime() time.Duration {
	var total time.Duration
	for k := 1; k <= p.NumRetries; k++ {
		total += p.retry(k).Delay
	}
	return total
}

// The fields of a retry policy, in the order AWS writes them [AWS rec 2024-10].
var retryFields = [...]string{"minDelayTarget", "maxDelayTarget", "numRetries", "numMaxDelayRetries", "numNoDelayRetries", "numMinDelayRetries", "backoffFunction"}

// retryPolicyJSON is a retry policy as given: the fields set, which a stored policy keeps
// (a partial one is completed only in EffectiveDeliveryPolicy).
type retryPolicyJSON struct {
	p   RetryPolicy
	set [len(retryFields)]bool
}

// complete fills what was not given with SNS's defaults.
func (r *retryPolicyJSON) complete() RetryPolicy {
	p := DefaultRetryPolicy
	vals := [...]*int{&p.MinDelayTarget, &p.MaxDelayTarget, &p.NumRetries, &p.NumMaxDelayRetries, &p.NumNoDelayRetries, &p.NumMinDelayRetries}
	given := [...]int{r.p.MinDelayTarget, r.p.MaxDelayTarget, r.p.NumRetries, r.p.NumMaxDelayRetries, r.p.NumNoDelayRetries, r.p.NumMinDelayRetries}
	for i, v := range vals {
		if r.set[i] {
			*v = given[i]
		}
	}
	if r.set[6] {
		p.BackoffFunction = r.p.BackoffFunction
	}
	return p
}

func (r *retryPolicyJSON) appendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	for i, name := range retryFields {
		if !r.set[i] {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		if i == 6 {
			b = appendJSONString(b, r.p.BackoffFunction)
			continue
		}
		b = strconv.AppendInt(b, int64(*r.field(i)), 10)
	}
	return append(b, '}')
}

func (r *retryPolicyJSON) field(i int) *int {
	return [...]*int{&r.p.MinDelayTarget, &r.p.MaxDelayTarget, &r.p.NumRetries, &r.p.NumMaxDelayRetries, &r.p.NumNoDelayRetries, &r.p.NumMinDelayRetries}[i]
}

func appendRetryPolicy(b []byte, p RetryPolicy) []byte {
	r := retryPolicyJSON{p: p, set: [len(retryFields)]bool{true, true, true, true, true, true, true}}
	return r.appendJSON(b)
}

// subscriptionPolicy is a subscription's DeliveryPolicy as SNS keeps it; nil members were
// absent or null.
type subscriptionPolicy struct {
	healthy, sickly *retryPolicyJSON
	throttle        *int    // maxReceivesPerSecond
	contentType     *string // requestPolicy.headerContentType
	hasRequest      bool    // requestPolicy given (possibly without headerContentType)
	hasThrottle     bool
	guaranteed      bool
}

// topicPolicy is a topic's DeliveryPolicy (its "http" object) as SNS keeps it.
type topicPolicy struct {
	healthy, sickly *retryPolicyJSON
	throttle        *int
	contentType     *string
	hasRequest      bool
	hasThrottle     bool
	disableOverride bool
}

// policyError is a DeliveryPolicy refusal: "DeliveryPolicy: " and what is wrong, after the
// caller's prefix (SPEC-sns.md §14.5).
func policyError(prefix, what string) *snsError {
	return errInvalidParameter(prefix + "DeliveryPolicy: " + what)
}

// parseObject reads a JSON object into its members; null and absent are the same to SNS.
func parseObject(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false
	}
	return m, true
}

func isNull(raw json.RawMessage) bool { return strings.TrimSpace(string(raw)) == "null" }

// parseSubscriptionPolicy checks a subscription's DeliveryPolicy (prefix before SNS's
// text: "Attributes Reason: " on Subscribe).
func parseSubscriptionPolicy(prefix, v string) (*subscriptionPolicy, *snsError) {
	top, err := parseTop(prefix, v)
	if err != nil {
		return nil, err
	}
	sp := &subscriptionPolicy{}
	for _, k := range sortedKeys(top) {
		raw := top[k]
		switch k {
		case "healthyRetryPolicy", "sicklyRetryPolicy":
			if isNull(raw) {
				continue
			}
			r, err := parseRetryPolicy(prefix, k, raw)
			if err != nil {
				return nil, err
			}
			if k == "healthyRetryPolicy" {
				sp.healthy = r
			} else {
				sp.sickly = r
			}
		case "throttlePolicy":
			n, has, err := parseThrottle(prefix, k, raw)
			if err != nil {
				return nil, err
			}
			sp.throttle, sp.hasThrottle = n, has
		case "requestPolicy":
			ct, has, err := parseRequest(prefix, k, raw)
			if err != nil {
				return nil, err
			}
			sp.contentType, sp.hasRequest = ct, has
		case "guaranteed":
			b, err := parseBool(prefix, k, raw)
			if err != nil {
				return nil, err
			}
			sp.guaranteed = b
		default:
			return nil, policyError(prefix, "Unrecognized field \""+k+"\"")
		}
	}
	return sp, nil
}

// parseTopicPolicy checks a topic's DeliveryPolicy (SPEC-sns.md §14.5).
func parseTopicPolicy(prefix, v string) (*topicPolicy, *snsError) {
	top, err := parseTop(prefix, v)
	if err != nil {
		return nil, err
	}
	tp := &topicPolicy{}
	for _, k := range sortedKeys(top) {
		if k != "http" {
			return nil, policyError(prefix, "Unrecognized field \""+k+"\"")
		}
		if isNull(top[k]) {
			continue
		}
		httpObj, ok := parseObject(top[k])
		if !ok || httpObj == nil {
			return nil, policyError(prefix, "http must be an object")
		}
		for _, hk := range sortedKeys(httpObj) {
			raw := httpObj[hk]
			path := "http." + hk
			switch hk {
			case "defaultHealthyRetryPolicy", "defaultSicklyRetryPolicy":
				if isNull(raw) {
					continue
				}
				r, err := parseRetryPolicy(prefix, path, raw)
				if err != nil {
					return nil, err
				}
				if hk == "defaultHealthyRetryPolicy" {
					tp.healthy = r
				} else {
					tp.sickly = r
				}
			case "defaultThrottlePolicy":
				n, has, err := parseThrottle(prefix, path, raw)
				if err != nil {
					return nil, err
				}
				tp.throttle, tp.hasThrottle = n, has
			case "defaultRequestPolicy":
				ct, has, err := parseRequest(prefix, path, raw)
				if err != nil {
					return nil, err
				}
				tp.contentType, tp.hasRequest = ct, has
			case "disableSubscriptionOverrides":
				b, err := parseBool(prefix, path, raw)
				if err != nil {
					return nil, err
				}
				tp.disableOverride = b
			default:
				return nil, policyError(prefix, "Unrecognized field \""+path+"\"")
			}
		}
	}
	return tp, nil
}

func parseTop(prefix, v string) (map[string]json.RawMessage, *snsError) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &top); err != nil {
		return nil, policyError(prefix, "failed to parse JSON. "+err.Error())
	}
	if top == nil {
		return nil, policyError(prefix, "failed to parse JSON. The policy must be a JSON object")
	}
	return top, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Insertion sort: a handful of keys.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// parseRetryPolicy checks a retry policy; path names it in the refusals
// ("healthyRetryPolicy", "http.defaultHealthyRetryPolicy").
func parseRetryPolicy(prefix, path string, raw json.RawMessage) (*retryPolicyJSON, *snsError) {
	obj, ok := parseObject(raw)
	if !ok {
		return nil, policyError(prefix, path+" must be an object")
	}
	r := &retryPolicyJSON{}
	for _, k := range sortedKeys(obj) {
		i := fieldIndex(k)
		if i < 0 {
			return nil, policyError(prefix, "Unrecognized field \""+path+"."+k+"\"")
		}
		if isNull(obj[k]) {
			continue
		}
		if i == 6 {
			var s string
			if json.Unmarshal(obj[k], &s) != nil {
				return nil, policyError(prefix, path+".backoffFunction must be a string")
			}
			switch s {
			case BackoffLinear, BackoffArithmetic, BackoffGeometric, BackoffExponential:
			default:
				return nil, policyError(prefix, path+".backoffFunction must be one of linear, arithmetic, geometric, exponential")
			}
			r.p.BackoffFunction, r.set[6] = s, true
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(obj[k])), 10, 32)
		if err != nil {
			return nil, policyError(prefix, path+"."+k+" must be an integer")
		}
		*r.field(i), r.set[i] = int(n), true
	}
	p := r.complete()
	at := func(f string) string { return path + "." + f }
	switch {
	case p.MinDelayTarget < 1:
		return nil, policyError(prefix, at("minDelayTarget")+" must be greater than or equal to 1")
	case p.MaxDelayTarget > maxDelayTarget:
		return nil, policyError(prefix, at("maxDelayTarget")+" must be less than or equal to 3600")
	case p.MaxDelayTarget < p.MinDelayTarget:
		return nil, policyError(prefix, at("maxDelayTarget")+" must be greater than or equal to minDelayTarget")
	case p.NumRetries < 0:
		return nil, policyError(prefix, at("numRetries")+" must be greater than or equal to 0")
	case p.NumRetries > maxPolicyRetries:
		return nil, policyError(prefix, at("numRetries")+" must be less than or equal to 100")
	case p.NumNoDelayRetries < 0:
		return nil, policyError(prefix, at("numNoDelayRetries")+" must be greater than or equal to 0")
	case p.NumMinDelayRetries < 0:
		return nil, policyError(prefix, at("numMinDelayRetries")+" must be greater than or equal to 0")
	case p.NumMaxDelayRetries < 0:
		return nil, policyError(prefix, at("numMaxDelayRetries")+" must be greater than or equal to 0")
	case p.NumNoDelayRetries+p.NumMinDelayRetries+p.NumMaxDelayRetries > p.NumRetries:
		return nil, policyError(prefix, at("numRetries")+" must be greater than or equal to total of numMinDelayRetries, numNoDelayRetries and numMaxDelayRetries")
	case p.TotalRetryTime() > maxRetryTime:
		return nil, policyError(prefix, path+": the total retry time of the policy ("+strconv.FormatFloat(p.TotalRetryTime().Seconds(), 'f', -1, 64)+
			" seconds) must be less than or equal to 3600 seconds")
	}
	return r, nil
}

func fieldIndex(k string) int {
	for i, f := range retryFields {
		if f == k {
			return i
		}
	}
	return -1
}

func parseThrottle(prefix, path string, raw json.RawMessage) (*int, bool, *snsError) {
	if isNull(raw) {
		return nil, false, nil
	}
	obj, ok := parseObject(raw)
	if !ok {
		return nil, false, policyError(prefix, path+" must be an object")
	}
	var n *int
	for _, k := range sortedKeys(obj) {
		if k != "maxReceivesPerSecond" {
			return nil, false, policyError(prefix, "Unrecognized field \""+path+"."+k+"\"")
		}
		if isNull(obj[k]) {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(obj[k])), 10, 32)
		if err != nil {
			return nil, false, policyError(prefix, path+".maxReceivesPerSecond must be an integer")
		}
		if v < 1 {
			return nil, false, policyError(prefix, path+".maxReceivesPerSecond must be greater than or equal to 1")
		}
		iv := int(v)
		n = &iv
	}
	return n, true, nil
}

func parseRequest(prefix, path string, raw json.RawMessage) (*string, bool, *snsError) {
	if isNull(raw) {
		return nil, false, nil
	}
	obj, ok := parseObject(raw)
	if !ok {
		return nil, false, policyError(prefix, path+" must be an object")
	}
	var ct *string
	for _, k := range sortedKeys(obj) {
		if k != "headerContentType" {
			return nil, false, policyError(prefix, "Unrecognized field \""+path+"."+k+"\"")
		}
		if isNull(obj[k]) {
			continue
		}
		var s string
		if json.Unmarshal(obj[k], &s) != nil {
			return nil, false, policyError(prefix, path+".headerContentType must be a string")
		}
		if !validHeaderValue(s) {
			return nil, false, policyError(prefix, path+".headerContentType is not a valid Content-Type: "+strconv.Quote(s))
		}
		ct = &s
	}
	return ct, true, nil
}

// validHeaderValue: a non-empty header value without control characters (no line breaks
// that would forge headers of the POST).
func validHeaderValue(s string) bool {
	if strings.TrimSpace(s) == "" || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func parseBool(prefix, path string, raw json.RawMessage) (bool, *snsError) {
	if isNull(raw) {
		return false, nil
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, policyError(prefix, path+" must be true or false")
	}
	return b, nil
}

// String is the policy as SNS stores it, for GetSubscriptionAttributes: every member,
// null when absent [AWS rec 2024-10].
func (sp *subscriptionPolicy) String() string {
	b := make([]byte, 0, 256)
	b = append(b, `{"healthyRetryPolicy":`...)
	b = appendRetryOrNull(b, sp.healthy)
	b = append(b, `,"sicklyRetryPolicy":`...)
	b = appendRetryOrNull(b, sp.sickly)
	b = append(b, `,"throttlePolicy":`...)
	b = appendThrottle(b, sp.hasThrottle, sp.throttle)
	b = append(b, `,"requestPolicy":`...)
	b = appendRequest(b, sp.hasRequest, sp.contentType)
	b = append(b, `,"guaranteed":`...)
	b = strconv.AppendBool(b, sp.guaranteed)
	return string(append(b, '}'))
}

func appendRetryOrNull(b []byte, r *retryPolicyJSON) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	return r.appendJSON(b)
}

func appendThrottle(b []byte, has bool, n *int) []byte {
	if !has {
		return append(b, "null"...)
	}
	if n == nil {
		return append(b, `{"maxReceivesPerSecond":null}`...)
	}
	b = append(b, `{"maxReceivesPerSecond":`...)
	b = strconv.AppendInt(b, int64(*n), 10)
	return append(b, '}')
}

func appendRequest(b []byte, has bool, ct *string) []byte {
	if !has {
		return append(b, "null"...)
	}
	if ct == nil {
		return append(b, `{}`...)
	}
	b = append(b, `{"headerContentType":`...)
	b = appendJSONString(b, *ct)
	return append(b, '}')
}

// String is the topic's policy as SNS stores it: the http object with what was given and
// disableSubscriptionOverrides always [AWS rec 2024-10].
func (tp *topicPolicy) String() string {
	return string(tp.appendJSON(make([]byte, 0, 256), tp.healthy, tp.contentType, true))
}

// appendJSON writes the topic's http object with healthy and contentType as given (String)
// or completed (effective).
func (tp *topicPolicy) appendJSON(b []byte, healthy *retryPolicyJSON, contentType *string, stored bool) []byte {
	b = append(b, `{"http":{`...)
	if healthy != nil {
		b = append(b, `"defaultHealthyRetryPolicy":`...)
		b = healthy.appendJSON(b)
		b = append(b, ',')
	}
	if tp.sickly != nil {
		b = append(b, `"defaultSicklyRetryPolicy":`...)
		b = tp.sickly.appendJSON(b)
		b = append(b, ',')
	}
	b = append(b, `"disableSubscriptionOverrides":`...)
	b = strconv.AppendBool(b, tp.disableOverride)
	if tp.hasThrottle {
		b = append(b, `,"defaultThrottlePolicy":`...)
		b = appendThrottle(b, true, tp.throttle)
	}
	switch {
	case contentType != nil:
		b = append(b, `,"defaultRequestPolicy":{"headerContentType":`...)
		b = appendJSONString(b, *contentType)
		b = append(b, '}')
	case stored && tp.hasRequest:
		b = append(b, `,"defaultRequestPolicy":{}`...)
	}
	return append(b, "}}"...)
}

// effective is the topic's EffectiveDeliveryPolicy: its policy completed with SNS's
// defaults (a nil tp: the defaults alone), as GetTopicAttributes answers it.
func (tp *topicPolicy) effective() string {
	if tp == nil {
		return EffectiveDeliveryPolicy
	}
	healthy := &retryPolicyJSON{p: DefaultRetryPolicy}
	if tp.healthy != nil {
		healthy.p = tp.healthy.complete()
	}
	healthy.set = [len(retryFields)]bool{true, true, true, true, true, true, true}
	ct := DefaultContentType
	if tp.contentType != nil {
		ct = *tp.contentType
	}
	return string(tp.appendJSON(make([]byte, 0, 320), healthy, &ct, false))
}

// httpPolicy is what governs the POSTs to one subscription: the effective retry policy, the
// throttle (0: none) and the Content-Type of notifications.
type httpPolicy struct {
	retry       RetryPolicy
	throttle    int
	contentType string
}

// effectivePolicy is the policy SNS applies to a subscription (SPEC-sns.md §14.5): the
// topic's when it disables overrides, else the subscription's members, each falling back
// to the topic's and then to SNS's defaults.
func effectivePolicy(sp *subscriptionPolicy, tp *topicPolicy) httpPolicy {
	hp := httpPolicy{retry: DefaultRetryPolicy, contentType: DefaultContentType}
	if tp != nil {
		if tp.healthy != nil {
			hp.retry = tp.healthy.complete()
		}
		if tp.throttle != nil {
			hp.throttle = *tp.throttle
		}
		if tp.contentType != nil {
			hp.contentType = *tp.contentType
		}
		if tp.disableOverride {
			return hp
		}
	}
	if sp != nil {
		if sp.healthy != nil {
			hp.retry = sp.healthy.complete()
		}
		if sp.throttle != nil {
			hp.throttle = *sp.throttle
		}
		if sp.contentType != nil {
			hp.contentType = *sp.contentType
		}
	}
	return hp
}

// effectiveSubscriptionPolicy is a subscription's EffectiveDeliveryPolicy as
// GetSubscriptionAttributes answers it [AWS rec 2024-10].
func effectiveSubscriptionPolicy(sp *subscriptionPolicy, tp *topicPolicy) string {
	hp := effectivePolicy(sp, tp)
	b := make([]byte, 0, 320)
	b = append(b, `{"healthyRetryPolicy":`...)
	b = appendRetryPolicy(b, hp.retry)
	b = append(b, `,"sicklyRetryPolicy":`...)
	var sickly *retryPolicyJSON
	guaranteed := false
	if sp != nil {
		sickly, guaranteed = sp.sickly, sp.guaranteed
	}
	b = appendRetryOrNull(b, sickly)
	b = append(b, `,"throttlePolicy":`...)
	if hp.throttle > 0 {
		b = appendThrottle(b, true, &hp.throttle)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"requestPolicy":`...)
	b = appendRequest(b, true, &hp.contentType)
	b = append(b, `,"guaranteed":`...)
	b = strconv.AppendBool(b, guaranteed)
	return string(append(b, '}'))
}
