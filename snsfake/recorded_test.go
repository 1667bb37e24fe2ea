package snsfake_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// The cases AWS recorded that the fake answered otherwise (issue 29): LocalStack's
// AWS-validated SNS tests (tests/aws/services/sns/*.snapshot.json), each named after its
// test.

// test_publish_batch_exceptions (rec 2023-08): a batch's own checks come before its
// entries', so two entries of one Id without a MessageGroupId on a FIFO topic are
// BatchEntryIdsNotDistinct, not the missing group.
func TestRecordedPublishBatchExceptions(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	sqsPart, _ := json.Marshal(map[string]string{"sqs": "test sqs"})
	for _, c := range []struct {
		name          string
		entries       []types.PublishBatchRequestEntry
		code, message string
	}{
		{"no-group-id", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String("Test message without Group ID")}},
			"InvalidParameter", "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"},
		{"too-many-msg", func() []types.PublishBatchRequestEntry {
			var es []types.PublishBatchRequestEntry
			for i := range 11 {
				es = append(es, types.PublishBatchRequestEntry{Id: aws.String("Id_" + string(rune('a'+i))), Message: aws.String("Too many messages")})
			}
			return es
		}(), "TooManyEntriesInBatchRequest", "The batch request contains more entries than permissible."},
		{"same-msg-id", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String("Messages with the same ID")},
			{Id: aws.String("1"), Message: aws.String("Messages with the same ID")}},
			"BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id."},
		{"no-dedup-id", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String("Test message without MessageDeduplicationId"),
			MessageGroupId: aws.String("msg1")}},
			"InvalidParameter", "Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"},
		{"no-default-key-json", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String(string(sqsPart)), MessageStructure: aws.String("json")}},
			"InvalidParameter", "Invalid parameter: Message Structure - No default entry in JSON message body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: tp.TopicArn, PublishBatchRequestEntries: c.entries})
			requireSNSError(t, err, c.code, c.message)
		})
	}
}

// test_publish_batch... / test_publish_message_attributes (rec 2024-11): an attribute sent
// without a DataType is SNS's ValidationError, naming the member by its wire path — for a
// batch entry with its 1-based index.
func TestRecordedMissingDataTypeNamesTheMemberPath(t *testing.T) {
	s, topic, _ := setup(t, "t", nil, "q")
	h := s.Handler(s.SQS().Handler())
	arn := url.QueryEscape(topic)
	for _, c := range []struct{ form, message string }{
		{"Action=Publish&Version=2010-03-31&TopicArn=" + arn + "&Message=m&MessageAttributes.entry.1.Name=attr1&MessageAttributes.entry.1.Value.StringValue=v",
			"1 validation error detected: Value null at 'messageAttributes.attr1.member.dataType' failed to satisfy constraint: Member must not be null"},
		{"Action=PublishBatch&Version=2010-03-31&TopicArn=" + arn + "&PublishBatchRequestEntries.member.1.Id=1&PublishBatchRequestEntries.member.1.Message=m" +
			"&PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Name=attr1&PublishBatchRequestEntries.member.1.MessageAttributes.entry.1.Value.StringValue=v",
			"1 validation error detected: Value null at 'publishBatchRequestEntries.1.member.messageAttributes.attr1.member.dataType' failed to satisfy constraint: Member must not be null"},
	} {
		w := post(t, h, "/", c.form, "", "", "")
		code, msg := errorOf(w.Body.String())
		assert.Equal(t, []any{http.StatusBadRequest, "ValidationError", c.message}, []any{w.Code, code, msg})
	}
}

// test_list_subscriptions_by_topic_pagination (rec 2023-08): NextToken is base64 a client
// decodes as such (padded: Python's base64.b64decode refuses it unpadded).
func TestRecordedNextTokenIsPaddedBase64(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	for i := range 101 {
		_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sms"), Endpoint: aws.String("+12312312" + strconv.Itoa(i))})
		require.NoError(t, err)
	}
	page, err := s.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	require.NotNil(t, page.NextToken)
	_, err = base64.StdEncoding.DecodeString(*page.NextToken)
	require.NoError(t, err, "padded base64: %s", *page.NextToken)
	next, err := s.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: tp.TopicArn, NextToken: page.NextToken})
	require.NoError(t, err)
	assert.Len(t, next.Subscriptions, 1)
	assert.Nil(t, next.NextToken)
}

// test_publish_sqs_from_sns_with_xray_propagation (rec 2023-08): a Publish with an
// X-Amzn-Trace-Id header puts it on the queued message as its AWSTraceHeader.
func TestRecordedXRayTraceHeaderReachesTheQueue(t *testing.T) {
	s, topic, _ := setup(t, "t", nil, "q")
	queue := "arn:aws:sqs:us-east-1:" + account + ":q"
	_, err := s.Subscribe(context.Background(), &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	h := s.Handler(s.SQS().Handler())
	trace := "Root=1-3152b799-8954dae64eda91bc9a23a7e8;Parent=7fa8c0f79203be72;Sampled=1"
	r := httptest.NewRequest(http.MethodPost, "http://localhost/", strings.NewReader("Action=Publish&Version=2010-03-31&TargetArn="+url.QueryEscape(topic)+
		"&Message="+url.QueryEscape("X-Ray propagation test msg")))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("X-Amzn-Trace-Id", trace)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	got := receiveAll(t, s.SQS(), "q")
	require.Len(t, got, 1)
	assert.Equal(t, trace, got[0].Attributes["AWSTraceHeader"])
}

// test_validate_set_sub_attributes (rec 2025-10): a RedrivePolicy or FilterPolicy that is not
// JSON is refused in Jackson's words, with its location.
func TestRecordedMalformedPoliciesAreRefusedInJacksonsWords(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	const jackson = "Unexpected character ('i' (code 105)): was expecting double-quote to start field name\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]"
	for _, name := range []string{"RedrivePolicy", "FilterPolicy"} {
		_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn,
			AttributeName: aws.String(name), AttributeValue: aws.String("{invalidjson}")})
		requireSNSError(t, err, "InvalidParameter", "Invalid parameter: "+name+": failed to parse JSON. "+jackson)
	}
	_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn,
		AttributeName: aws.String("RedrivePolicy"), AttributeValue: aws.String(`{"deadLetterTargetArn":"fake-arn"}`)})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn")
	// test_subscribe_invalid_filter_policy (rec 2026-01).
	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("email"), Endpoint: aws.String("test@example.com"),
		Attributes: map[string]string{"FilterPolicy": "invalid-json"}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Attributes Reason: FilterPolicy: failed to parse JSON. Unrecognized token 'invalid': "+
		"was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 8]")
	// test_sub_filter_policy_nested_property_constraints (rec 2024-05): a rule that is neither
	// an object nor an array, and the guide's nested policy of 216 combinations.
	_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn,
		AttributeName: aws.String("FilterPolicyScope"), AttributeValue: aws.String("MessageBody")})
	require.NoError(t, err)
	for policy, want := range map[string]string{
		`{"key_a":{"key_b":{"key_c":["value_one","value_two","value_three","value_four"]}},"key_d":{"key_e":["value_one","value_two","value_three"]},"key_f":["value_one","value_two","value_three"]}`: "Invalid parameter: FilterPolicy: Filter policy is too complex",
		`{"key_a":"value_one"}`: "Invalid parameter: FilterPolicy: \"key_a\" must be an object or an array\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 11]",
	} {
		_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn,
			AttributeName: aws.String("FilterPolicy"), AttributeValue: aws.String(policy)})
		requireSNSError(t, err, "InvalidParameter", want)
	}
}

// A signed POST whose parameters are in the query, whose body is empty and whose signed
// headers include content-length:0, as botocore's SigV4Auth signs one: answered (signed mode
// refused it, recomputing the signature without that header).
func TestRecordedSignedEmptyPOSTWithContentLength(t *testing.T) {
	f := sqsfake.New(sqsfake.WithCredentials(attackCredentials...))
	h := snsfake.New(f).Handler(f.Handler())
	at := time.Now().UTC()
	date := at.Format("20060102T150405Z")
	r := httptest.NewRequest(http.MethodPost, "http://localhost/?Action=ListTopics&Version=2010-03-31", http.NoBody)
	r.ContentLength = 0
	r.Header.Set("Content-Length", "0")
	canonical := "POST\n/\nAction=ListTopics&Version=2010-03-31\ncontent-length:0\nhost:localhost\nx-amz-date:" + date +
		"\n\ncontent-length;host;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	scope := date[:8] + "/us-east-1/sns/aws4_request"
	sum := sha256.Sum256([]byte(canonical))
	sts := "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	mac := func(k []byte, s string) []byte { m := hmac.New(sha256.New, k); m.Write([]byte(s)); return m.Sum(nil) }
	key := mac(mac(mac(mac([]byte("AWS4"+ownerSecret), date[:8]), "us-east-1"), "sns"), "aws4_request")
	r.Header.Set("X-Amz-Date", date)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+ownerKey+"/"+scope+", SignedHeaders=content-length;host;x-amz-date, Signature="+
		hex.EncodeToString(mac(key, sts)))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), "<ListTopicsResponse")
}
