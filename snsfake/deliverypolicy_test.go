package snsfake_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake/snsfake"
)

// The documents AWS answered in the recordings of SPEC-sns.md §14.5 (LocalStack's
// test_topic_delivery_policy_crud and test_subscribe_external_http_endpoint_content_type,
// AWS-validated 2024-10).
const (
	defaultHealthy     = `{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":3,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"}`
	fixtureSubPolicy   = `{"healthyRetryPolicy": {"minDelayTarget": 1, "maxDelayTarget": 1, "numRetries": 0, "numNoDelayRetries": 0, "numMinDelayRetries": 0, "numMaxDelayRetries": 0, "backoffFunction": "linear"}, "sicklyRetryPolicy": null, "throttlePolicy": {"maxReceivesPerSecond": 1000}, "guaranteed": false}`
	fixtureSubStored   = `{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":1,"numRetries":0,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"sicklyRetryPolicy":null,"throttlePolicy":{"maxReceivesPerSecond":1000},"requestPolicy":null,"guaranteed":false}`
	jsonTopicPolicy    = `{"http": {"defaultRequestPolicy": {"headerContentType": "application/json"}}}`
	jsonTopicStored    = `{"http":{"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"application/json"}}}`
	jsonTopicEffective = `{"http":{"defaultHealthyRetryPolicy":` + defaultHealthy + `,"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"application/json"}}}`
)

func TestTopicDeliveryPolicyIsStoredNormalisedAndCompletedAsAWSDoes(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Attributes: map[string]string{"DeliveryPolicy": jsonTopicPolicy}})
	require.NoError(t, err)
	attrs := func() map[string]string {
		t.Helper()
		out, err := s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: tp.TopicArn})
		require.NoError(t, err)
		return out.Attributes
	}
	a := attrs()
	assert.Equal(t, jsonTopicStored, a["DeliveryPolicy"])
	assert.Equal(t, jsonTopicEffective, a["EffectiveDeliveryPolicy"])
	again, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Attributes: map[string]string{"DeliveryPolicy": jsonTopicPolicy}})
	require.NoError(t, err, "the same policy again is the same topic")
	assert.Equal(t, *tp.TopicArn, *again.TopicArn)

	for _, c := range []struct{ set, stored, effective string }{
		{`{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":5,"maxDelayTarget":6,"numRetries":1}}}`,
			`{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":5,"maxDelayTarget":6,"numRetries":1},"disableSubscriptionOverrides":false}}`,
			`{"http":{"defaultHealthyRetryPolicy":{"minDelayTarget":5,"maxDelayTarget":6,"numRetries":1,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"disableSubscriptionOverrides":false,"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}`},
		{`{"http":{"defaultHealthyRetryPolicy":null}}`, `{"http":{"disableSubscriptionOverrides":false}}`, snsfake.EffectiveDeliveryPolicy},
		{`{"http":{"disableSubscriptionOverrides":true,"defaultThrottlePolicy":{"maxReceivesPerSecond":2}}}`,
			`{"http":{"disableSubscriptionOverrides":true,"defaultThrottlePolicy":{"maxReceivesPerSecond":2}}}`,
			`{"http":{"defaultHealthyRetryPolicy":` + defaultHealthy + `,"disableSubscriptionOverrides":true,"defaultThrottlePolicy":{"maxReceivesPerSecond":2},"defaultRequestPolicy":{"headerContentType":"text/plain; charset=UTF-8"}}}`},
		{"", "", snsfake.EffectiveDeliveryPolicy},
	} {
		_, err := s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: tp.TopicArn, AttributeName: aws.String("DeliveryPolicy"), AttributeValue: aws.String(c.set)})
		require.NoError(t, err, c.set)
		a := attrs()
		stored, ok := a["DeliveryPolicy"]
		assert.Equal(t, c.stored != "", ok, c.set)
		assert.Equal(t, c.stored, stored, c.set)
		assert.Equal(t, c.effective, a["EffectiveDeliveryPolicy"], c.set)
	}
}

func TestSubscriptionDeliveryPolicyIsStoredWithEveryMemberAndCompletedFromTheTopic(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String("http://hooks.example/sns"),
		ReturnSubscriptionArn: true})
	require.NoError(t, err)
	set := func(name, v string) {
		t.Helper()
		_, err := s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn, AttributeName: aws.String(name), AttributeValue: aws.String(v)})
		require.NoError(t, err)
	}
	attrs := func() map[string]string {
		t.Helper()
		out, err := s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn})
		require.NoError(t, err)
		return out.Attributes
	}
	// No policy anywhere: SNS's defaults.
	_, has := attrs()["DeliveryPolicy"]
	assert.False(t, has)
	assert.Equal(t, `{"healthyRetryPolicy":`+defaultHealthy+`,"sicklyRetryPolicy":null,"throttlePolicy":null,"requestPolicy":{"headerContentType":"text/plain; charset=UTF-8"},"guaranteed":false}`,
		attrs()["EffectiveDeliveryPolicy"])

	// The recordings: LocalStack's fixture policy, with the topic's content type.
	set("DeliveryPolicy", fixtureSubPolicy)
	_, err = s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: tp.TopicArn, AttributeName: aws.String("DeliveryPolicy"), AttributeValue: aws.String(jsonTopicPolicy)})
	require.NoError(t, err)
	a := attrs()
	assert.Equal(t, fixtureSubStored, a["DeliveryPolicy"])
	assert.Equal(t, `{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":1,"numRetries":0,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"sicklyRetryPolicy":null,"throttlePolicy":{"maxReceivesPerSecond":1000},"requestPolicy":{"headerContentType":"application/json"},"guaranteed":false}`,
		a["EffectiveDeliveryPolicy"])

	// Only a request policy: the retry policy is the topic's (here SNS's default).
	set("DeliveryPolicy", `{"requestPolicy": {"headerContentType": "text/csv"}}`)
	a = attrs()
	assert.Equal(t, `{"healthyRetryPolicy":null,"sicklyRetryPolicy":null,"throttlePolicy":null,"requestPolicy":{"headerContentType":"text/csv"},"guaranteed":false}`, a["DeliveryPolicy"])
	assert.Equal(t, `{"healthyRetryPolicy":`+defaultHealthy+`,"sicklyRetryPolicy":null,"throttlePolicy":null,"requestPolicy":{"headerContentType":"text/csv"},"guaranteed":false}`,
		a["EffectiveDeliveryPolicy"])

	// The topic that disables overrides wins.
	_, err = s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: tp.TopicArn, AttributeName: aws.String("DeliveryPolicy"),
		AttributeValue: aws.String(`{"http":{"defaultHealthyRetryPolicy":{"numRetries":5},"disableSubscriptionOverrides":true}}`)})
	require.NoError(t, err)
	assert.Equal(t, `{"healthyRetryPolicy":{"minDelayTarget":20,"maxDelayTarget":20,"numRetries":5,"numMaxDelayRetries":0,"numNoDelayRetries":0,"numMinDelayRetries":0,"backoffFunction":"linear"},"sicklyRetryPolicy":null,"throttlePolicy":null,"requestPolicy":{"headerContentType":"text/plain; charset=UTF-8"},"guaranteed":false}`,
		attrs()["EffectiveDeliveryPolicy"])

	// Subscribe with the same policy, written another way: the same subscription.
	again, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String("http://hooks.example/sns"),
		Attributes: map[string]string{"DeliveryPolicy": `{"requestPolicy":{"headerContentType":"text/csv"},"guaranteed":false}`}, ReturnSubscriptionArn: true})
	require.NoError(t, err)
	assert.Equal(t, *sub.SubscriptionArn, *again.SubscriptionArn)

	set("DeliveryPolicy", "")
	_, has = attrs()["DeliveryPolicy"]
	assert.False(t, has, `"" removes the policy`)
}

func TestDeliveryPolicyRefusalsAreSNSs(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String("https://hooks.example/sns"),
		ReturnSubscriptionArn: true})
	require.NoError(t, err)
	const p = "Invalid parameter: DeliveryPolicy: "
	for _, c := range []struct{ policy, want string }{
		// AWS's text, as CloudFormation users report it (SPEC-sns.md §14.5).
		{`{"healthyRetryPolicy":{"numRetries":0,"minDelayTarget":0,"maxDelayTarget":0,"numMinDelayRetries":0,"numMaxDelayRetries":0,"numNoDelayRetries":0,"backoffFunction":"exponential"}}`,
			p + "healthyRetryPolicy.minDelayTarget must be greater than or equal to 1"},
		{`{"healthyRetryPolicy":{"minDelayTarget":10,"maxDelayTarget":5}}`, p + "healthyRetryPolicy.maxDelayTarget must be greater than or equal to minDelayTarget"},
		{`{"healthyRetryPolicy":{"maxDelayTarget":3601}}`, p + "healthyRetryPolicy.maxDelayTarget must be less than or equal to 3600"},
		{`{"healthyRetryPolicy":{"numRetries":101}}`, p + "healthyRetryPolicy.numRetries must be less than or equal to 100"},
		{`{"healthyRetryPolicy":{"numRetries":-1}}`, p + "healthyRetryPolicy.numRetries must be greater than or equal to 0"},
		{`{"healthyRetryPolicy":{"numRetries":3,"numNoDelayRetries":2,"numMaxDelayRetries":2}}`,
			p + "healthyRetryPolicy.numRetries must be greater than or equal to total of numMinDelayRetries, numNoDelayRetries and numMaxDelayRetries"},
		{`{"healthyRetryPolicy":{"backoffFunction":"cubic"}}`, p + "healthyRetryPolicy.backoffFunction must be one of linear, arithmetic, geometric, exponential"},
		{`{"healthyRetryPolicy":{"numRetries":1.5}}`, p + "healthyRetryPolicy.numRetries must be an integer"},
		{`{"healthyRetryPolicy":{"numRetries":"3"}}`, p + "healthyRetryPolicy.numRetries must be an integer"},
		{`{"healthyRetryPolicy":{"numRetries":3,"retries":3}}`, p + `Unrecognized field "healthyRetryPolicy.retries"`},
		{`{"healthyRetryPolicy":5}`, p + "healthyRetryPolicy must be an object"},
		// 100 retries 60 s apart: 6,000 s, over SNS's hard limit of 3,600.
		{`{"healthyRetryPolicy":{"minDelayTarget":60,"maxDelayTarget":60,"numRetries":100}}`,
			p + "healthyRetryPolicy: the total retry time of the policy (6000 seconds) must be less than or equal to 3600 seconds"},
		{`{"throttlePolicy":{"maxReceivesPerSecond":0}}`, p + "throttlePolicy.maxReceivesPerSecond must be greater than or equal to 1"},
		{`{"requestPolicy":{"headerContentType":"text/plain\r\nX-Forged: 1"}}`, p + `requestPolicy.headerContentType is not a valid Content-Type: "text/plain\r\nX-Forged: 1"`},
		{`{"guaranteed":"yes"}`, p + "guaranteed must be true or false"},
		{`{"retryPolicy":{}}`, p + `Unrecognized field "retryPolicy"`},
		{`[1]`, p + "failed to parse JSON. json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
	} {
		_, err := s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn,
			AttributeName: aws.String("DeliveryPolicy"), AttributeValue: aws.String(c.policy)})
		requireSNSError(t, err, "InvalidParameter", c.want)
	}
	// Subscribe says which attribute, as for its other attributes.
	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String("https://hooks.example/other"),
		Attributes: map[string]string{"DeliveryPolicy": `{"healthyRetryPolicy":{"minDelayTarget":0}}`}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Attributes Reason: DeliveryPolicy: healthyRetryPolicy.minDelayTarget must be greater than or equal to 1")
	// A topic's policy names its http object's members.
	_, err = s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: tp.TopicArn, AttributeName: aws.String("DeliveryPolicy"),
		AttributeValue: aws.String(`{"http":{"defaultHealthyRetryPolicy":{"numRetries":200}}}`)})
	requireSNSError(t, err, "InvalidParameter", p+"http.defaultHealthyRetryPolicy.numRetries must be less than or equal to 100")
	_, err = s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: tp.TopicArn, AttributeName: aws.String("DeliveryPolicy"),
		AttributeValue: aws.String(`{"https":{}}`)})
	requireSNSError(t, err, "InvalidParameter", p+`Unrecognized field "https"`)
	// Nothing was changed by a refusal.
	attrs, err := s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn})
	require.NoError(t, err)
	assert.NotContains(t, attrs.Attributes, "DeliveryPolicy")
}

func TestRetriesFollowTheFourPhases(t *testing.T) {
	s := time.Second
	delays := func(p snsfake.RetryPolicy) []time.Duration {
		var out []time.Duration
		for _, r := range p.Retries() {
			out = append(out, r.Delay)
		}
		return out
	}
	// SNS's default: 3 retries, 20 seconds apart.
	assert.Equal(t, []snsfake.Retry{{1, snsfake.PhaseBackoff, 20 * s}, {2, snsfake.PhaseBackoff, 20 * s}, {3, snsfake.PhaseBackoff, 20 * s}},
		snsfake.DefaultRetryPolicy.Retries())
	// The guide's example: maxDelayTarget 40, linear: 20, 30, 40 seconds.
	p := snsfake.DefaultRetryPolicy
	p.MaxDelayTarget = 40
	assert.Equal(t, []time.Duration{20 * s, 30 * s, 40 * s}, delays(p))

	// The guide's sample policy: 3 at once, 2 one second apart, 10 from 1 to 60 seconds
	// exponentially, 35 a minute apart — 50 retries.
	sample := snsfake.RetryPolicy{MinDelayTarget: 1, MaxDelayTarget: 60, NumRetries: 50, NumNoDelayRetries: 3, NumMinDelayRetries: 2,
		NumMaxDelayRetries: 35, BackoffFunction: snsfake.BackoffExponential}
	rs := sample.Retries()
	require.Len(t, rs, 50)
	phases := map[snsfake.Phase]int{}
	for _, r := range rs {
		phases[r.Phase]++
	}
	assert.Equal(t, map[snsfake.Phase]int{snsfake.PhaseImmediate: 3, snsfake.PhasePreBackoff: 2, snsfake.PhaseBackoff: 10, snsfake.PhasePostBackoff: 35}, phases)
	assert.Equal(t, []time.Duration{0, 0, 0, s, s}, delays(sample)[:5])
	assert.Equal(t, s, rs[5].Delay, "the backoff phase starts at minDelayTarget")
	assert.Equal(t, 60*s, rs[14].Delay, "and ends at maxDelayTarget")
	assert.Equal(t, 60*s, rs[49].Delay)
	assert.Equal(t, 2228959*time.Millisecond, sample.TotalRetryTime())

	// The four functions from 5 to 260 seconds over 10 retries, the guide's graph: each
	// from min to max, exponential lowest and linear highest in between.
	curve := func(fn string) []time.Duration {
		return delays(snsfake.RetryPolicy{MinDelayTarget: 5, MaxDelayTarget: 260, NumRetries: 10, BackoffFunction: fn})
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{5 * s, 33333 * ms, 61667 * ms, 90 * s, 118333 * ms, 146667 * ms, 175 * s, 203333 * ms, 231667 * ms, 260 * s}, curve("linear"))
	assert.Equal(t, []time.Duration{5 * s, 10667 * ms, 22 * s, 39 * s, 61667 * ms, 90 * s, 124 * s, 163667 * ms, 209 * s, 260 * s}, curve("arithmetic"))
	assert.Equal(t, []time.Duration{5 * s, 7756 * ms, 12031 * ms, 18663 * ms, 28949 * ms, 44906 * ms, 69658 * ms, 108054 * ms, 167612 * ms, 260 * s}, curve("geometric"))
	assert.Equal(t, []time.Duration{5 * s, 5499 * ms, 6497 * ms, 8493 * ms, 12485 * ms, 20470 * ms, 36438 * ms, 68376 * ms, 132250 * ms, 260 * s}, curve("exponential"))
}
