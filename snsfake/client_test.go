package snsfake_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// smsAndPush are the operations of *sns.Client the fake leaves out: SMS, mobile push and
// platform applications (see the package doc).
var smsAndPush = []string{
	"CheckIfPhoneNumberIsOptedOut", "CreatePlatformApplication", "CreatePlatformEndpoint", "CreateSMSSandboxPhoneNumber",
	"DeleteEndpoint", "DeletePlatformApplication", "DeleteSMSSandboxPhoneNumber", "GetEndpointAttributes",
	"GetPlatformApplicationAttributes", "GetSMSAttributes", "GetSMSSandboxAccountStatus", "ListEndpointsByPlatformApplication",
	"ListOriginationNumbers", "ListPhoneNumbersOptedOut", "ListPlatformApplications", "ListSMSSandboxPhoneNumbers",
	"OptInPhoneNumber", "SetEndpointAttributes", "SetPlatformApplicationAttributes", "SetSMSAttributes", "VerifySMSSandboxPhoneNumber",
}

func TestMethodSetIsTheClientsLessSMSAndMobilePush(t *testing.T) {
	client := reflect.TypeFor[*sns.Client]()
	fake := reflect.TypeFor[*snsfake.Fake]()
	var have []string
	for i := range client.NumMethod() {
		m := client.Method(i)
		if m.Name == "Options" || slices.Contains(smsAndPush, m.Name) {
			if slices.Contains(smsAndPush, m.Name) {
				_, ok := fake.MethodByName(m.Name)
				assert.False(t, ok, "%s is SMS or mobile push: not in the method set", m.Name)
			}
			continue
		}
		fm, ok := fake.MethodByName(m.Name)
		if !assert.True(t, ok, "missing %s", m.Name) {
			continue
		}
		// Compare the signatures without the receiver.
		assert.Equal(t, m.Type.String()[strings.Index(m.Type.String(), ","):], fm.Type.String()[strings.Index(fm.Type.String(), ","):], m.Name)
		have = append(have, m.Name)
	}
	assert.Equal(t, snsfake.Operations(), have)
	assert.Len(t, have, 21)
	_, ok := fake.MethodByName("Options")
	assert.True(t, ok)
}

// corpus is one run of SNS calls, good and bad, through a client.
type api interface {
	CreateTopic(context.Context, *sns.CreateTopicInput, ...func(*sns.Options)) (*sns.CreateTopicOutput, error)
	GetTopicAttributes(context.Context, *sns.GetTopicAttributesInput, ...func(*sns.Options)) (*sns.GetTopicAttributesOutput, error)
	SetTopicAttributes(context.Context, *sns.SetTopicAttributesInput, ...func(*sns.Options)) (*sns.SetTopicAttributesOutput, error)
	Subscribe(context.Context, *sns.SubscribeInput, ...func(*sns.Options)) (*sns.SubscribeOutput, error)
	Publish(context.Context, *sns.PublishInput, ...func(*sns.Options)) (*sns.PublishOutput, error)
	PublishBatch(context.Context, *sns.PublishBatchInput, ...func(*sns.Options)) (*sns.PublishBatchOutput, error)
	ListTopics(context.Context, *sns.ListTopicsInput, ...func(*sns.Options)) (*sns.ListTopicsOutput, error)
	ListSubscriptionsByTopic(context.Context, *sns.ListSubscriptionsByTopicInput, ...func(*sns.Options)) (*sns.ListSubscriptionsByTopicOutput, error)
	TagResource(context.Context, *sns.TagResourceInput, ...func(*sns.Options)) (*sns.TagResourceOutput, error)
	DeleteTopic(context.Context, *sns.DeleteTopicInput, ...func(*sns.Options)) (*sns.DeleteTopicOutput, error)
	Unsubscribe(context.Context, *sns.UnsubscribeInput, ...func(*sns.Options)) (*sns.UnsubscribeOutput, error)
	GetSubscriptionAttributes(context.Context, *sns.GetSubscriptionAttributesInput, ...func(*sns.Options)) (*sns.GetSubscriptionAttributesOutput, error)
	SetSubscriptionAttributes(context.Context, *sns.SetSubscriptionAttributesInput, ...func(*sns.Options)) (*sns.SetSubscriptionAttributesOutput, error)
	ListSubscriptions(context.Context, *sns.ListSubscriptionsInput, ...func(*sns.Options)) (*sns.ListSubscriptionsOutput, error)
	ListTagsForResource(context.Context, *sns.ListTagsForResourceInput, ...func(*sns.Options)) (*sns.ListTagsForResourceOutput, error)
	UntagResource(context.Context, *sns.UntagResourceInput, ...func(*sns.Options)) (*sns.UntagResourceOutput, error)
	AddPermission(context.Context, *sns.AddPermissionInput, ...func(*sns.Options)) (*sns.AddPermissionOutput, error)
	RemovePermission(context.Context, *sns.RemovePermissionInput, ...func(*sns.Options)) (*sns.RemovePermissionOutput, error)
	PutDataProtectionPolicy(context.Context, *sns.PutDataProtectionPolicyInput, ...func(*sns.Options)) (*sns.PutDataProtectionPolicyOutput, error)
	GetDataProtectionPolicy(context.Context, *sns.GetDataProtectionPolicyInput, ...func(*sns.Options)) (*sns.GetDataProtectionPolicyOutput, error)
	ConfirmSubscription(context.Context, *sns.ConfirmSubscriptionInput, ...func(*sns.Options)) (*sns.ConfirmSubscriptionOutput, error)
}

var _ api = (*snsfake.Fake)(nil)
var _ api = (*sns.Client)(nil)

func runCorpus(c api) []string {
	ctx := context.Background()
	var log []string
	rec := func(out any, err error) {
		if err != nil {
			var api smithy.APIError
			code := ""
			if errors.As(err, &api) {
				code = fmt.Sprintf("%T %s", api, api.ErrorCode())
			}
			log = append(log, "error "+code+" | "+err.Error())
			return
		}
		v := reflect.ValueOf(out).Elem()
		if f := v.FieldByName("ResultMetadata"); f.IsValid() {
			f.Set(reflect.Zero(f.Type()))
		}
		log = append(log, fmt.Sprintf("%+v", awsutilPrettify(out)))
	}
	topic := "arn:aws:sns:us-east-1:123456789012:orders"
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders"), Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}))
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders"), Attributes: map[string]string{"DisplayName": "x"}}))
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("bad name")}))
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{}))
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo")}))
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true"}}))
	rec(c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topic)}))
	rec(c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String("nope")}))
	rec(c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topic + "x")}))
	rec(c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String("arn:aws:sns:eu-west-1:123456789012:orders")}))
	rec(c.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(topic), AttributeName: aws.String("Nope"), AttributeValue: aws.String("1")}))
	rec(c.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(topic), AttributeName: aws.String("DisplayName"), AttributeValue: aws.String("Orders")}))
	rec(c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:q")}))
	rec(c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String("https://sqs.us-east-1.amazonaws.com/123456789012/q")}))
	rec(c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("carrier-pigeon"), Endpoint: aws.String("x")}))
	rec(c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:q"),
		Attributes: map[string]string{"RawMessageDelivery": "maybe"}}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hello")}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic)}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("")}))
	rec(c.Publish(ctx, &sns.PublishInput{Message: aws.String("x")}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("x"),
		MessageAttributes: map[string]types.MessageAttributeValue{"a^b": {DataType: aws.String("String"), StringValue: aws.String("v")}}}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("x"),
		MessageAttributes: map[string]types.MessageAttributeValue{"a": {StringValue: aws.String("v")}}}))
	rec(c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
		{Id: aws.String("1"), Message: aws.String("a")}, {Id: aws.String("2"), Message: aws.String("b")}}}))
	rec(c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
		{Id: aws.String("1"), Message: aws.String("a")}, {Id: aws.String("1"), Message: aws.String("b")}}}))
	rec(c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: []types.PublishBatchRequestEntry{}}))
	rec(c.ListTopics(ctx, &sns.ListTopicsInput{}))
	rec(c.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: aws.String(topic)}))
	rec(c.TagResource(ctx, &sns.TagResourceInput{ResourceArn: aws.String(topic), Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("1")}, {Key: aws.String("a"), Value: aws.String("2")}}}))
	rec(c.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String("randomstring")}))
	rec(c.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(topic)}))
	rec(c.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(topic)}))
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")}, snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"})))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:222222222222:orders"), Message: aws.String("x")}))
	// Subscriptions, tags, permissions and data protection, through lists and maps on the wire.
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")}))
	sub, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:q"),
		Attributes: map[string]string{"RawMessageDelivery": "true", "FilterPolicy": `{"k":["v",{"numeric":[">",1]}]}`}})
	rec(sub, err)
	if sub != nil {
		rec(c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn}))
		rec(c.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn, AttributeName: aws.String("FilterPolicy"), AttributeValue: aws.String(`{"k":[]}`)}))
		rec(c.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn, AttributeName: aws.String("RawMessageDelivery"), AttributeValue: aws.String("false")}))
	}
	rec(c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:333333333333:theirs")}))
	rec(c.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{}))
	rec(c.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: aws.String(topic), Token: aws.String("zz")}))
	rec(c.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: aws.String(topic), Token: aws.String("abcd")}))
	rec(c.TagResource(ctx, &sns.TagResourceInput{ResourceArn: aws.String(topic), Tags: []types.Tag{{Key: aws.String("b"), Value: aws.String("2")}, {Key: aws.String("a"), Value: aws.String("<1>")}}}))
	rec(c.UntagResource(ctx, &sns.UntagResourceInput{ResourceArn: aws.String(topic), TagKeys: []string{"b", "zz"}}))
	rec(c.ListTagsForResource(ctx, &sns.ListTagsForResourceInput{ResourceArn: aws.String(topic)}))
	rec(c.UntagResource(ctx, &sns.UntagResourceInput{ResourceArn: aws.String(topic)}))
	rec(c.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: aws.String(topic), Label: aws.String("p"), AWSAccountId: []string{"222222222222", "333333333333"}, ActionName: []string{"Publish", "subscribe"}}))
	rec(c.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: aws.String(topic), Label: aws.String("p"), AWSAccountId: []string{"222222222222"}, ActionName: []string{"Publish"}}))
	rec(c.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topic)}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("granted")}, snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"})))
	rec(c.RemovePermission(ctx, &sns.RemovePermissionInput{TopicArn: aws.String(topic), Label: aws.String("p")}))
	rec(c.PutDataProtectionPolicy(ctx, &sns.PutDataProtectionPolicyInput{ResourceArn: aws.String(topic), DataProtectionPolicy: aws.String(`{"Name":"x"}`)}))
	rec(c.GetDataProtectionPolicy(ctx, &sns.GetDataProtectionPolicyInput{ResourceArn: aws.String(topic)}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(`{"default":"d"}`), MessageStructure: aws.String("json"), Subject: aws.String("s"),
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("Number"), StringValue: aws.String("5")}, "bin": {DataType: aws.String("Binary"), BinaryValue: []byte{0, 255}}}}))
	rec(c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("f.fifo"), Attributes: map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"}}))
	fifo := "arn:aws:sns:us-east-1:123456789012:f.fifo"
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(fifo), Message: aws.String("x"), MessageGroupId: aws.String("g")}))
	rec(c.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(fifo), Message: aws.String("x"), MessageGroupId: aws.String("g")}))
	rec(c.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(fifo), PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
		{Id: aws.String("a"), Message: aws.String("1"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d1")}}}))
	if sub != nil {
		rec(c.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: sub.SubscriptionArn}))
	}
	return log
}

// awsutilPrettify renders an output with its pointers followed.
func awsutilPrettify(v any) string { return prettify(reflect.ValueOf(v)) }

func prettify(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return prettify(v.Elem())
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("{")
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			fmt.Fprintf(&b, "%s:%s ", v.Type().Field(i).Name, prettify(v.Field(i)))
		}
		return b.String() + "}"
	case reflect.Slice:
		var parts []string
		for i := range v.Len() {
			parts = append(parts, prettify(v.Index(i)))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		var parts []string
		for _, k := range keys {
			parts = append(parts, k.String()+"="+prettify(v.MapIndex(k)))
		}
		return "map[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v.Interface())
}

func TestClientAndMethodsAnswerOneCorpusAlike(t *testing.T) {
	methods := runCorpus(snsfake.New(sqsfake.New()))
	client := runCorpus(snsfake.New(sqsfake.New()).Client())
	require.Equal(t, len(methods), len(client))
	for i := range methods {
		assert.Equal(t, methods[i], client[i], "call %d", i)
	}
	// Spot checks of SNS's answers.
	assert.Contains(t, methods[2], "*types.InvalidParameterException InvalidParameter | operation error SNS: CreateTopic, https response error StatusCode: 400, RequestID: ")
	assert.Contains(t, methods[2], "InvalidParameter: Invalid parameter: Topic Name")
	assert.Equal(t, "error  | operation error SNS: CreateTopic, 1 validation error(s) found.\n- missing required field, CreateTopicInput.Name.\n", methods[3])
	assert.Contains(t, methods[7], "InvalidParameter: Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1")
	assert.Contains(t, methods[8], "StatusCode: 404")
	assert.Contains(t, methods[8], "NotFound: Topic does not exist")
	assert.Contains(t, methods[9], "InvalidParameter: Invalid parameter: TopicArn")
	assert.Contains(t, methods[13], "Invalid parameter: SQS endpoint ARN")
	assert.Contains(t, methods[14], "Invalid parameter: Amazon SNS does not support this protocol string: carrier-pigeon")
	assert.Contains(t, methods[15], "Invalid parameter: Attributes Reason: RawMessageDelivery: Invalid value [maybe]. Must be true or false.")
	assert.Contains(t, methods[20], "*types.InvalidParameterValueException ParameterValueInvalid")
	assert.Contains(t, methods[23], "*types.BatchEntryIdsNotDistinctException")
	assert.Contains(t, methods[24], "*types.EmptyBatchRequestException")
	assert.Contains(t, methods[32], "*types.AuthorizationErrorException AuthorizationError")
}

func TestClientCallsCarryTheRequestID(t *testing.T) {
	c := snsfake.New(sqsfake.New()).Client()
	out, err := c.CreateTopic(context.Background(), &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	assert.True(t, ok)
	assert.Len(t, id, 36)
}
