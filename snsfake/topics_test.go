package snsfake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// requireSNSError checks err is SNS's error with the code and message.
func requireSNSError(t *testing.T, err error, code, message string) {
	t.Helper()
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "want %s, got %v", code, err)
	assert.Equal(t, code, api.ErrorCode())
	assert.Equal(t, message, api.ErrorMessage())
}

func newSNS() *snsfake.Fake { return snsfake.New(sqsfake.New()) }

func TestCreateTopicRefusesNamesAsSNSDoes(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]string
		ok    bool
	}{
		{"orders", nil, true},
		{"Or-d_3rs", nil, true},
		{strings.Repeat("a", 256), nil, true},
		{strings.Repeat("a", 257), nil, false},
		{"", nil, false},
		{"a:b", nil, false},
		{"a b", nil, false},
		{"a%b", nil, false},
		{"x.fifo", nil, false},
		{"x.fifo", map[string]string{"FifoTopic": "true"}, true},
		{"x.fifo", map[string]string{"FifoTopic": "false"}, false},
		{"x", map[string]string{"FifoTopic": "true"}, false},
		{".fifo", map[string]string{"FifoTopic": "true"}, false},
		{strings.Repeat("a", 251) + ".fifo", map[string]string{"FifoTopic": "true"}, true},
		{strings.Repeat("a", 252) + ".fifo", map[string]string{"FifoTopic": "true"}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.20s %v", tt.name, tt.attrs), func(t *testing.T) {
			out, err := newSNS().CreateTopic(context.Background(), &sns.CreateTopicInput{Name: aws.String(tt.name), Attributes: tt.attrs})
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, "arn:aws:sns:us-east-1:123456789012:"+tt.name, *out.TopicArn)
				return
			}
			requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Topic Name")
		})
	}
}

func TestCreateTopicIsIdempotentOnWhatIsSent(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tag := func(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }
	first, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Attributes: map[string]string{"DisplayName": "T", "SignatureVersion": "2"},
		Tags: []types.Tag{tag("a", "1"), tag("b", "2")}})
	require.NoError(t, err)
	same := []*sns.CreateTopicInput{
		{Name: aws.String("t")},
		{Name: aws.String("t"), Attributes: map[string]string{"DisplayName": "T"}},
		{Name: aws.String("t"), Attributes: map[string]string{"FifoTopic": "false"}},
		{Name: aws.String("t"), Tags: []types.Tag{tag("b", "2")}},
	}
	for _, in := range same {
		out, err := s.CreateTopic(ctx, in)
		require.NoError(t, err)
		assert.Equal(t, *first.TopicArn, *out.TopicArn)
	}
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Attributes: map[string]string{"DisplayName": "other"}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Attributes Reason: Topic already exists with different attributes")
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Attributes: map[string]string{"TracingConfig": "Active"}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Attributes Reason: Topic already exists with different attributes")
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Tags: []types.Tag{tag("c", "3")}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Tags Reason: Topic already exists with different tags")
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), Tags: []types.Tag{tag("a", "9")}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Tags Reason: Topic already exists with different tags")
}

func TestGetTopicAttributesHasTheFullSet(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	std, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	fifo, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true"}})
	require.NoError(t, err)
	got, err := s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: std.TopicArn})
	require.NoError(t, err)
	arn := "arn:aws:sns:us-east-1:123456789012:t"
	assert.Equal(t, map[string]string{
		"TopicArn": arn, "Owner": "123456789012", "DisplayName": "",
		"Policy":                  snsfake.DefaultPolicy(arn, "123456789012"),
		"EffectiveDeliveryPolicy": snsfake.EffectiveDeliveryPolicy,
		"SubscriptionsConfirmed":  "0", "SubscriptionsPending": "0", "SubscriptionsDeleted": "0",
	}, got.Attributes)
	assert.Equal(t, `{"Version":"2008-10-17","Id":"__default_policy_ID","Statement":[{"Sid":"__default_statement_ID","Effect":"Allow","Principal":{"AWS":"*"},"Action":["SNS:GetTopicAttributes","SNS:SetTopicAttributes","SNS:AddPermission","SNS:RemovePermission","SNS:DeleteTopic","SNS:Subscribe","SNS:ListSubscriptionsByTopic","SNS:Publish"],"Resource":"arn:aws:sns:us-east-1:123456789012:t","Condition":{"StringEquals":{"AWS:SourceOwner":"123456789012"}}}]}`, got.Attributes["Policy"])
	got, err = s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: fifo.TopicArn})
	require.NoError(t, err)
	assert.Equal(t, "true", got.Attributes["FifoTopic"])
	assert.Equal(t, "false", got.Attributes["ContentBasedDeduplication"])
	assert.Len(t, got.Attributes, 10)
}

func TestSetTopicAttributesChecksNameAndValue(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	std, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	fifo, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true"}})
	tests := []struct {
		topic       *string
		name, value string
		message     string // "" = accepted
	}{
		{std.TopicArn, "DisplayName", "Orders", ""},
		{std.TopicArn, "SignatureVersion", "2", ""},
		{std.TopicArn, "SignatureVersion", "3", "Invalid parameter: SignatureVersion: Invalid value [3]"},
		{std.TopicArn, "Nope", "x", "Invalid parameter: AttributeName"},
		{std.TopicArn, "FifoTopic", "true", "Invalid parameter: AttributeName"},
		{fifo.TopicArn, "FifoTopic", "true", "Invalid parameter: AttributeName"},
		{std.TopicArn, "ContentBasedDeduplication", "true", "Invalid parameter: AttributeName"},
		{fifo.TopicArn, "ContentBasedDeduplication", "TRUE", ""},
		{std.TopicArn, "Policy", "{", "Invalid parameter: Policy Error: null"},
		{std.TopicArn, "TracingConfig", "Active", ""},
		{std.TopicArn, "SQSSuccessFeedbackSampleRate", "101", "Invalid parameter: SQSSuccessFeedbackSampleRate: Invalid value [101]"},
	}
	for _, tt := range tests {
		_, err := s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: tt.topic, AttributeName: aws.String(tt.name), AttributeValue: aws.String(tt.value)})
		if tt.message == "" {
			assert.NoError(t, err, tt.name)
			continue
		}
		requireSNSError(t, err, "InvalidParameter", tt.message)
	}
	got, err := s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: fifo.TopicArn})
	require.NoError(t, err)
	assert.Equal(t, "true", got.Attributes["ContentBasedDeduplication"])
	got, err = s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: std.TopicArn})
	require.NoError(t, err)
	assert.Equal(t, "Orders", got.Attributes["DisplayName"])
	assert.Equal(t, "2", got.Attributes["SignatureVersion"])
}

func TestListTopicsPagesTheCallersRegion(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	for i := range 250 {
		_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(fmt.Sprintf("t%03d", i))})
		require.NoError(t, err)
	}
	_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("elsewhere")}, func(o *sns.Options) { o.Region = "eu-west-1" })
	require.NoError(t, err)
	var all []string
	pages := 0
	p := sns.NewListTopicsPaginator(s, &sns.ListTopicsInput{})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		pages++
		for _, tp := range out.Topics {
			all = append(all, *tp.TopicArn)
		}
	}
	assert.Equal(t, 3, pages)
	require.Len(t, all, 250)
	assert.Equal(t, "arn:aws:sns:us-east-1:123456789012:t000", all[0])
	assert.Equal(t, "arn:aws:sns:us-east-1:123456789012:t249", all[249])
	out, err := s.ListTopics(ctx, &sns.ListTopicsInput{}, func(o *sns.Options) { o.Region = "eu-west-1" })
	require.NoError(t, err)
	assert.Equal(t, []types.Topic{{TopicArn: aws.String("arn:aws:sns:eu-west-1:123456789012:elsewhere")}}, out.Topics)
	_, err = s.ListTopics(ctx, &sns.ListTopicsInput{NextToken: aws.String("!!")})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: NextToken")
}

func TestTagsAreAddedListedAndRemoved(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	tag := func(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }
	_, err := s.TagResource(ctx, &sns.TagResourceInput{ResourceArn: tp.TopicArn, Tags: []types.Tag{tag("b", "2"), tag("a", "1")}})
	require.NoError(t, err)
	_, err = s.TagResource(ctx, &sns.TagResourceInput{ResourceArn: tp.TopicArn, Tags: []types.Tag{tag("a", "9")}})
	require.NoError(t, err)
	out, err := s.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: tp.TopicArn})
	require.NoError(t, err)
	assert.Equal(t, []types.Tag{tag("a", "9"), tag("b", "2")}, out.Tags)
	_, err = s.UntagResource(ctx, &sns.UntagResourceInput{ResourceArn: tp.TopicArn, TagKeys: []string{"a", "zzz"}})
	require.NoError(t, err)
	out, _ = s.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: tp.TopicArn})
	assert.Equal(t, []types.Tag{tag("b", "2")}, out.Tags)

	_, err = s.TagResource(ctx, &sns.TagResourceInput{ResourceArn: tp.TopicArn, Tags: []types.Tag{tag("x", "1"), tag("x", "2")}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Duplicated keys are not allowed.")
	_, err = s.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: aws.String("arn:aws:sns:us-east-1:123456789012:nope")})
	requireSNSError(t, err, "ResourceNotFound", "Resource does not exist")
	var many []types.Tag
	for i := range 50 {
		many = append(many, tag(fmt.Sprint(i), "v"))
	}
	_, err = s.TagResource(ctx, &sns.TagResourceInput{ResourceArn: tp.TopicArn, Tags: many})
	requireSNSError(t, err, "TagLimitExceeded", "Could not complete request: tag quota of per resource exceeded")

	// DeleteTopic takes the tags; the topic re-created has none, and deleting it again is no error.
	_, err = s.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	_, err = s.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	again, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	assert.Equal(t, *tp.TopicArn, *again.TopicArn)
	out, _ = s.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: tp.TopicArn})
	assert.Equal(t, []types.Tag{}, out.Tags)
}

func TestAnotherAccountActsOnlyWhereThePolicyAllows(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	bob := snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:user/bob"})
	publish := func() error {
		_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("x")}, bob)
		return err
	}
	requireSNSError(t, publish(), "AuthorizationError",
		"User: arn:aws:iam::222222222222:user/bob is not authorized to perform: SNS:Publish on resource: arn:aws:sns:us-east-1:123456789012:t because no resource-based policy allows the SNS:Publish action")

	_, err := s.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: tp.TopicArn, Label: aws.String("bob"), AWSAccountId: []string{"222222222222"}, ActionName: []string{"Publish"}})
	require.NoError(t, err)
	require.NoError(t, publish())
	attrs, _ := s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: tp.TopicArn})
	assert.Equal(t, `{"Id":"__default_policy_ID","Statement":[{"Action":["SNS:GetTopicAttributes","SNS:SetTopicAttributes","SNS:AddPermission","SNS:RemovePermission","SNS:DeleteTopic","SNS:Subscribe","SNS:ListSubscriptionsByTopic","SNS:Publish"],"Condition":{"StringEquals":{"AWS:SourceOwner":"123456789012"}},"Effect":"Allow","Principal":{"AWS":"*"},"Resource":"arn:aws:sns:us-east-1:123456789012:t","Sid":"__default_statement_ID"},{"Action":"SNS:Publish","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:root"},"Resource":"arn:aws:sns:us-east-1:123456789012:t","Sid":"bob"}],"Version":"2008-10-17"}`, attrs.Attributes["Policy"])
	_, err = s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: tp.TopicArn}, bob)
	requireSNSError(t, err, "AuthorizationError",
		"User: arn:aws:iam::222222222222:user/bob is not authorized to perform: SNS:GetTopicAttributes on resource: arn:aws:sns:us-east-1:123456789012:t because no resource-based policy allows the SNS:GetTopicAttributes action")

	_, err = s.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: tp.TopicArn, Label: aws.String("bob"), AWSAccountId: []string{"222222222222"}, ActionName: []string{"Publish"}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Statement already exists")
	_, err = s.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: tp.TopicArn, Label: aws.String("x"), AWSAccountId: []string{"222222222222"}, ActionName: []string{"CreateTopic"}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Policy statement action out of service scope!")

	_, err = s.RemovePermission(ctx, &sns.RemovePermissionInput{TopicArn: tp.TopicArn, Label: aws.String("bob")})
	require.NoError(t, err)
	assert.Error(t, publish())

	// An explicit deny binds the owner too.
	_, err = s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: tp.TopicArn, AttributeName: aws.String("Policy"),
		AttributeValue: aws.String(`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sns:Publish","Resource":"*"}]}`)})
	require.NoError(t, err)
	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("x")})
	requireSNSError(t, err, "AuthorizationError",
		"User: arn:aws:iam::123456789012:root is not authorized to perform: SNS:Publish on resource: arn:aws:sns:us-east-1:123456789012:t with an explicit deny in a resource-based policy")
}

func TestDataProtectionPolicyIsStoredAndNotAnAttribute(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t"), DataProtectionPolicy: aws.String(`{"Name":"a"}`)})
	got, err := s.GetDataProtectionPolicy(ctx, &sns.GetDataProtectionPolicyInput{ResourceArn: tp.TopicArn})
	require.NoError(t, err)
	assert.Equal(t, `{"Name":"a"}`, *got.DataProtectionPolicy)
	_, err = s.PutDataProtectionPolicy(ctx, &sns.PutDataProtectionPolicyInput{ResourceArn: tp.TopicArn, DataProtectionPolicy: aws.String(`{"Name":"b"}`)})
	require.NoError(t, err)
	got, _ = s.GetDataProtectionPolicy(ctx, &sns.GetDataProtectionPolicyInput{ResourceArn: tp.TopicArn})
	assert.Equal(t, `{"Name":"b"}`, *got.DataProtectionPolicy)
	attrs, _ := s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: tp.TopicArn})
	assert.NotContains(t, attrs.Attributes, "DataProtectionPolicy")
	_, err = s.PutDataProtectionPolicy(ctx, &sns.PutDataProtectionPolicyInput{ResourceArn: tp.TopicArn, DataProtectionPolicy: aws.String(`nope`)})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: DataProtectionPolicy")
}

func TestResetEmptiesTheTopicsWithTheQueues(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	first, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	sub, _ := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: first.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:q")})
	f.Reset()
	assert.Empty(t, s.Topics())
	assert.Empty(t, published(t, s, ""))
	_, _ = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	again, _ := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: first.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:q")})
	assert.Equal(t, *sub.SubscriptionArn, *again.SubscriptionArn, "ids start again after Reset")
}

func TestAnAccountHasAtMost1000FIFOTopics(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	fifo := map[string]string{"FifoTopic": "true"}
	for i := range 1000 {
		_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(fmt.Sprintf("t%d.fifo", i)), Attributes: fifo})
		require.NoError(t, err)
	}
	_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("one-more.fifo"), Attributes: fifo})
	requireSNSError(t, err, "TopicLimitExceeded", "Topic limit exceeded")
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t7.fifo"), Attributes: fifo})
	assert.NoError(t, err, "an existing topic's name is no new topic")
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("standard")})
	assert.NoError(t, err)
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("theirs.fifo"), Attributes: fifo}, snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"}))
	assert.NoError(t, err, "the quota is per account")
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("there.fifo"), Attributes: fifo}, func(o *sns.Options) { o.Region = "eu-west-1" })
	assert.NoError(t, err, "and region")
	_, err = s.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:t0.fifo")})
	require.NoError(t, err)
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("one-more.fifo"), Attributes: fifo})
	assert.NoError(t, err)
}
