package sqsfake

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ---- GetQueueAttributes ----

func qlGetAttrs(t *testing.T, f *Fake, url string, names ...types.QueueAttributeName) *sqs.GetQueueAttributesOutput {
	t.Helper()
	out, err := f.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: names})
	require.NoError(t, err)
	return out
}

func TestGetQueueAttributesWithoutNamesReturnsNilAttributes(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	for _, names := range [][]types.QueueAttributeName{nil, {}} {
		out, err := f.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(u), AttributeNames: names})
		require.NoError(t, err)
		assert.Equal(t, &sqs.GetQueueAttributesOutput{}, out)
	}
}

func TestGetQueueAttributesAllOnAFreshStandardQueueReturnsExactlyTwelveAttributes(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	out := qlGetAttrs(t, f, u, types.QueueAttributeNameAll)
	assert.Equal(t, &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		"ApproximateNumberOfMessages":           "0",
		"ApproximateNumberOfMessagesDelayed":    "0",
		"ApproximateNumberOfMessagesNotVisible": "0",
		"CreatedTimestamp":                      "1735689600",
		"DelaySeconds":                          "0",
		"LastModifiedTimestamp":                 "1735689600",
		"MaximumMessageSize":                    "1048576",
		"MessageRetentionPeriod":                "345600",
		"QueueArn":                              "arn:aws:sqs:us-east-1:123456789012:jobs",
		"ReceiveMessageWaitTimeSeconds":         "0",
		"SqsManagedSseEnabled":                  "true",
		"VisibilityTimeout":                     "30",
	}}, out)
	assert.Len(t, out.Attributes, 12)
}

func TestGetQueueAttributesAllOnAFreshFIFOQueueAddsFourAttributes(t *testing.T) {
	f := New()
	u := qlCreateFIFO(t, f, "jobs.fifo", nil)
	out := qlGetAttrs(t, f, u, types.QueueAttributeNameAll)
	want := qlWith(qlFreshStandard("jobs.fifo", qlStart), map[string]string{
		"ContentBasedDeduplication": "false",
		"DeduplicationScope":        "queue",
		"FifoQueue":                 "true",
		"FifoThroughputLimit":       "perQueue",
	})
	assert.Equal(t, &sqs.GetQueueAttributesOutput{Attributes: want}, out)
	assert.Len(t, out.Attributes, 16)
}

func TestGetQueueAttributesReturnsOnlyTheNamedAttributesThatHaveAValue(t *testing.T) {
	f := New()
	std := qlCreate(t, f, "jobs", nil)
	fifo := qlCreateFIFO(t, f, "jobs.fifo", nil)
	kms := qlCreate(t, f, "kms", map[string]string{"KmsMasterKeyId": "alias/aws/sqs"})
	cases := []struct {
		desc  string
		url   string
		names []types.QueueAttributeName
		want  map[string]string
	}{
		{"one attribute", std, []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout}, map[string]string{"VisibilityTimeout": "30"}},
		{"several attributes", std, []types.QueueAttributeName{types.QueueAttributeNameQueueArn, types.QueueAttributeNameDelaySeconds},
			map[string]string{"QueueArn": qlARN("jobs"), "DelaySeconds": "0"}},
		{"a name given twice", std, []types.QueueAttributeName{types.QueueAttributeNameDelaySeconds, types.QueueAttributeNameDelaySeconds},
			map[string]string{"DelaySeconds": "0"}},
		{"unset ones are left out", std, []types.QueueAttributeName{types.QueueAttributeNamePolicy, types.QueueAttributeNameVisibilityTimeout, types.QueueAttributeNameRedrivePolicy},
			map[string]string{"VisibilityTimeout": "30"}},
		{"none of them set", std, []types.QueueAttributeName{types.QueueAttributeNamePolicy, types.QueueAttributeNameRedrivePolicy,
			types.QueueAttributeNameRedriveAllowPolicy, types.QueueAttributeNameKmsMasterKeyId, types.QueueAttributeNameKmsDataKeyReusePeriodSeconds}, nil},
		{"FIFO attributes of a standard queue", std, []types.QueueAttributeName{types.QueueAttributeNameFifoQueue, types.QueueAttributeNameContentBasedDeduplication,
			types.QueueAttributeNameDeduplicationScope, types.QueueAttributeNameFifoThroughputLimit}, nil},
		{"FIFO attributes of a FIFO queue", fifo, []types.QueueAttributeName{types.QueueAttributeNameFifoQueue, types.QueueAttributeNameContentBasedDeduplication,
			types.QueueAttributeNameDeduplicationScope, types.QueueAttributeNameFifoThroughputLimit},
			map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "false", "DeduplicationScope": "queue", "FifoThroughputLimit": "perQueue"}},
		{"KMS attributes of a KMS queue", kms, []types.QueueAttributeName{types.QueueAttributeNameKmsMasterKeyId, types.QueueAttributeNameKmsDataKeyReusePeriodSeconds, types.QueueAttributeNameSqsManagedSseEnabled},
			map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "false"}},
		{"All together with names", std, []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout, types.QueueAttributeNameAll},
			qlFreshStandard("jobs", qlStart)},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			assert.Equal(t, &sqs.GetQueueAttributesOutput{Attributes: tc.want}, qlGetAttrs(t, f, tc.url, tc.names...))
		})
	}
}

func TestGetQueueAttributesWithAnUnknownNameFailsWithInvalidAttributeName(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	cases := []struct {
		names   []types.QueueAttributeName
		unknown string
	}{
		{[]types.QueueAttributeName{"Bogus"}, "Bogus"},
		{[]types.QueueAttributeName{"all"}, "all"},
		{[]types.QueueAttributeName{"visibilityTimeout"}, "visibilityTimeout"},
		{[]types.QueueAttributeName{"VisibilityTimeout", "Bogus"}, "Bogus"},
		{[]types.QueueAttributeName{"All", "Bogus"}, "Bogus"},
		{[]types.QueueAttributeName{"SentTimestamp"}, "SentTimestamp"}, // a message attribute, not a queue attribute
		{[]types.QueueAttributeName{""}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.unknown, func(t *testing.T) {
			before := qlState(t, f)
			_, err := f.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(u), AttributeNames: tc.names})
			qlRequireError(t, err, "GetQueueAttributes", qlUnknownAttribute(tc.unknown))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestGetQueueAttributesCountsVisibleInFlightAndDelayedMessages(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	counts := func() map[string]string {
		return qlGetAttrs(t, f, u, types.QueueAttributeNameApproximateNumberOfMessages,
			types.QueueAttributeNameApproximateNumberOfMessagesNotVisible, types.QueueAttributeNameApproximateNumberOfMessagesDelayed).Attributes
	}
	want := func(visible, inFlight, delayed string) map[string]string {
		return map[string]string{"ApproximateNumberOfMessages": visible, "ApproximateNumberOfMessagesNotVisible": inFlight, "ApproximateNumberOfMessagesDelayed": delayed}
	}
	assert.Equal(t, want("0", "0", "0"), counts())
	for _, b := range []string{"a", "b", "c"} {
		qlSend(t, f, u, b, 0)
	}
	qlSend(t, f, u, "d10", 10)
	qlSend(t, f, u, "d20", 20)
	assert.Equal(t, want("3", "0", "2"), counts())

	got := qlReceive(t, f, u, 2) // in flight for the queue's 30 s
	require.Len(t, got, 2)
	assert.Equal(t, want("1", "2", "2"), counts())

	f.Advance(10 * time.Second)
	assert.Equal(t, want("2", "2", "1"), counts())
	f.Advance(10 * time.Second)
	assert.Equal(t, want("3", "2", "0"), counts())

	_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(u), ReceiptHandle: got[0].ReceiptHandle})
	require.NoError(t, err)
	assert.Equal(t, want("3", "1", "0"), counts())

	f.Advance(10 * time.Second) // the other received message's visibility timeout ends
	assert.Equal(t, want("4", "0", "0"), counts())
}

func TestGetQueueAttributesTimestampsAreEpochSecondsThatMoveWithTheClock(t *testing.T) {
	f := New()
	timestamps := []types.QueueAttributeName{types.QueueAttributeNameCreatedTimestamp, types.QueueAttributeNameLastModifiedTimestamp}
	u := qlCreate(t, f, "jobs", nil)
	assert.Equal(t, map[string]string{"CreatedTimestamp": "1735689600", "LastModifiedTimestamp": "1735689600"}, qlGetAttrs(t, f, u, timestamps...).Attributes)

	f.Advance(90*time.Second + 999*time.Millisecond) // seconds are truncated, not rounded
	assert.Equal(t, map[string]string{"CreatedTimestamp": "1735689600", "LastModifiedTimestamp": "1735689600"}, qlGetAttrs(t, f, u, timestamps...).Attributes,
		"reading does not change them")
	qlSetAttrs(t, f, u, map[string]string{"VisibilityTimeout": "31"})
	assert.Equal(t, map[string]string{"CreatedTimestamp": "1735689600", "LastModifiedTimestamp": "1735689690"}, qlGetAttrs(t, f, u, timestamps...).Attributes)

	later := qlCreate(t, f, "later", nil)
	assert.Equal(t, map[string]string{"CreatedTimestamp": "1735689690", "LastModifiedTimestamp": "1735689690"}, qlGetAttrs(t, f, later, timestamps...).Attributes)

	f.Advance(24 * time.Hour)
	qlSetAttrs(t, f, u, map[string]string{"VisibilityTimeout": "31"}) // the same value still counts as a change
	assert.Equal(t, map[string]string{"CreatedTimestamp": "1735689600", "LastModifiedTimestamp": "1735776090"}, qlGetAttrs(t, f, u, timestamps...).Attributes)
}

func TestGetQueueAttributesReturnsANewMapEachCall(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	a := qlAttrs(t, f, u)
	a["VisibilityTimeout"] = "1"
	delete(a, "QueueArn")
	assert.Equal(t, qlFreshStandard("jobs", qlStart), qlAttrs(t, f, u))
}

// ---- Attribute validation, shared by CreateQueue and SetQueueAttributes ----

// qlAcceptedAttributes are attribute sets both CreateQueue and SetQueueAttributes accept,
// with what GetQueueAttributes(All) shows afterwards compared with a fresh queue (an empty
// value means the attribute is absent).
var qlAcceptedAttributes = []struct {
	desc  string
	fifo  bool
	attrs map[string]string
	shown map[string]string
}{
	{"DelaySeconds minimum", false, map[string]string{"DelaySeconds": "0"}, map[string]string{"DelaySeconds": "0"}},
	{"DelaySeconds maximum", false, map[string]string{"DelaySeconds": "900"}, map[string]string{"DelaySeconds": "900"}},
	{"MaximumMessageSize minimum", false, map[string]string{"MaximumMessageSize": "1024"}, map[string]string{"MaximumMessageSize": "1024"}},
	{"MaximumMessageSize maximum", false, map[string]string{"MaximumMessageSize": "1048576"}, map[string]string{"MaximumMessageSize": "1048576"}},
	{"MessageRetentionPeriod minimum", false, map[string]string{"MessageRetentionPeriod": "60"}, map[string]string{"MessageRetentionPeriod": "60"}},
	{"MessageRetentionPeriod maximum", false, map[string]string{"MessageRetentionPeriod": "1209600"}, map[string]string{"MessageRetentionPeriod": "1209600"}},
	{"ReceiveMessageWaitTimeSeconds minimum", false, map[string]string{"ReceiveMessageWaitTimeSeconds": "0"}, map[string]string{"ReceiveMessageWaitTimeSeconds": "0"}},
	{"ReceiveMessageWaitTimeSeconds maximum", false, map[string]string{"ReceiveMessageWaitTimeSeconds": "20"}, map[string]string{"ReceiveMessageWaitTimeSeconds": "20"}},
	{"VisibilityTimeout minimum", false, map[string]string{"VisibilityTimeout": "0"}, map[string]string{"VisibilityTimeout": "0"}},
	{"VisibilityTimeout maximum", false, map[string]string{"VisibilityTimeout": "43200"}, map[string]string{"VisibilityTimeout": "43200"}},
	{"KmsMasterKeyId switches SQS-managed SSE off", false, map[string]string{"KmsMasterKeyId": "alias/aws/sqs"},
		map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "false"}},
	{"KmsMasterKeyId with SSE explicitly off", false, map[string]string{"KmsMasterKeyId": "k", "SqsManagedSseEnabled": "False"},
		map[string]string{"KmsMasterKeyId": "k", "KmsDataKeyReusePeriodSeconds": "300", "SqsManagedSseEnabled": "false"}},
	{"KmsDataKeyReusePeriodSeconds minimum", false, map[string]string{"KmsMasterKeyId": "k", "KmsDataKeyReusePeriodSeconds": "60"},
		map[string]string{"KmsMasterKeyId": "k", "KmsDataKeyReusePeriodSeconds": "60", "SqsManagedSseEnabled": "false"}},
	{"KmsDataKeyReusePeriodSeconds maximum", false, map[string]string{"KmsMasterKeyId": "k", "KmsDataKeyReusePeriodSeconds": "86400"},
		map[string]string{"KmsMasterKeyId": "k", "KmsDataKeyReusePeriodSeconds": "86400", "SqsManagedSseEnabled": "false"}},
	{"KmsDataKeyReusePeriodSeconds without a key is not shown", false, map[string]string{"KmsDataKeyReusePeriodSeconds": "600"}, nil},
	{"KmsMasterKeyId empty", false, map[string]string{"KmsMasterKeyId": ""}, nil},
	{"SqsManagedSseEnabled false", false, map[string]string{"SqsManagedSseEnabled": "false"}, map[string]string{"SqsManagedSseEnabled": "false"}},
	{"SqsManagedSseEnabled FALSE", false, map[string]string{"SqsManagedSseEnabled": "FALSE"}, map[string]string{"SqsManagedSseEnabled": "false"}},
	{"SqsManagedSseEnabled True", false, map[string]string{"SqsManagedSseEnabled": "True"}, map[string]string{"SqsManagedSseEnabled": "true"}},
	{"Policy", false, map[string]string{"Policy": `{"Version":"2012-10-17","Statement":[]}`}, map[string]string{"Policy": `{"Version":"2012-10-17","Statement":[]}`}},
	{"Policy empty", false, map[string]string{"Policy": ""}, nil},
	{"RedriveAllowPolicy", false, map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`}, map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`}},
	{"several at once", false, map[string]string{"DelaySeconds": "5", "VisibilityTimeout": "60", "ReceiveMessageWaitTimeSeconds": "20"},
		map[string]string{"DelaySeconds": "5", "VisibilityTimeout": "60", "ReceiveMessageWaitTimeSeconds": "20"}},
	{"ContentBasedDeduplication TRUE", true, map[string]string{"ContentBasedDeduplication": "TRUE"}, map[string]string{"ContentBasedDeduplication": "true"}},
	{"ContentBasedDeduplication False", true, map[string]string{"ContentBasedDeduplication": "False"}, map[string]string{"ContentBasedDeduplication": "false"}},
	{"DeduplicationScope messageGroup", true, map[string]string{"DeduplicationScope": "messageGroup"}, map[string]string{"DeduplicationScope": "messageGroup"}},
	{"DeduplicationScope queue", true, map[string]string{"DeduplicationScope": "queue"}, map[string]string{"DeduplicationScope": "queue"}},
	{"FifoThroughputLimit perQueue", true, map[string]string{"FifoThroughputLimit": "perQueue"}, map[string]string{"FifoThroughputLimit": "perQueue"}},
	{"high throughput mode", true, map[string]string{"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"},
		map[string]string{"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"}},
	{"FifoQueue true on a FIFO queue", true, map[string]string{"FifoQueue": "true"}, nil},
	{"FifoQueue TRUE on a FIFO queue", true, map[string]string{"FifoQueue": "TRUE"}, nil},
}

// qlRejectedAttributes are attribute sets both CreateQueue and SetQueueAttributes reject.
var qlRejectedAttributes = []struct {
	desc  string
	fifo  bool
	attrs map[string]string
	want  qlErr
}{
	{"DelaySeconds below 0", false, map[string]string{"DelaySeconds": "-1"}, qlInvalidValueFor("DelaySeconds")},
	{"DelaySeconds above 900", false, map[string]string{"DelaySeconds": "901"}, qlInvalidValueFor("DelaySeconds")},
	{"DelaySeconds not a number", false, map[string]string{"DelaySeconds": "abc"}, qlInvalidValueFor("DelaySeconds")},
	{"DelaySeconds fractional", false, map[string]string{"DelaySeconds": "1.5"}, qlInvalidValueFor("DelaySeconds")},
	{"DelaySeconds empty", false, map[string]string{"DelaySeconds": ""}, qlInvalidValueFor("DelaySeconds")},
	{"MaximumMessageSize below 1024", false, map[string]string{"MaximumMessageSize": "1023"}, qlInvalidValueFor("MaximumMessageSize")},
	{"MaximumMessageSize above 1 MiB", false, map[string]string{"MaximumMessageSize": "1048577"}, qlInvalidValueFor("MaximumMessageSize")},
	{"MessageRetentionPeriod below 60", false, map[string]string{"MessageRetentionPeriod": "59"}, qlInvalidValueFor("MessageRetentionPeriod")},
	{"MessageRetentionPeriod above 14 days", false, map[string]string{"MessageRetentionPeriod": "1209601"}, qlInvalidValueFor("MessageRetentionPeriod")},
	{"ReceiveMessageWaitTimeSeconds below 0", false, map[string]string{"ReceiveMessageWaitTimeSeconds": "-1"}, qlInvalidValueFor("ReceiveMessageWaitTimeSeconds")},
	{"ReceiveMessageWaitTimeSeconds above 20", false, map[string]string{"ReceiveMessageWaitTimeSeconds": "21"}, qlInvalidValueFor("ReceiveMessageWaitTimeSeconds")},
	{"VisibilityTimeout below 0", false, map[string]string{"VisibilityTimeout": "-1"}, qlInvalidValueFor("VisibilityTimeout")},
	{"VisibilityTimeout above 12 hours", false, map[string]string{"VisibilityTimeout": "43201"}, qlInvalidValueFor("VisibilityTimeout")},
	{"VisibilityTimeout huge", false, map[string]string{"VisibilityTimeout": "99999999999999999999"}, qlInvalidValueFor("VisibilityTimeout")},
	{"KmsDataKeyReusePeriodSeconds below 60", false, map[string]string{"KmsDataKeyReusePeriodSeconds": "59"}, qlInvalidValueFor("KmsDataKeyReusePeriodSeconds")},
	{"KmsDataKeyReusePeriodSeconds above 1 day", false, map[string]string{"KmsMasterKeyId": "k", "KmsDataKeyReusePeriodSeconds": "86401"}, qlInvalidValueFor("KmsDataKeyReusePeriodSeconds")},
	{"SqsManagedSseEnabled not a boolean", false, map[string]string{"SqsManagedSseEnabled": "yes"}, qlInvalidValueFor("SqsManagedSseEnabled")},
	{"SqsManagedSseEnabled 1", false, map[string]string{"SqsManagedSseEnabled": "1"}, qlInvalidValueFor("SqsManagedSseEnabled")},
	{"SqsManagedSseEnabled empty", false, map[string]string{"SqsManagedSseEnabled": ""}, qlInvalidValueFor("SqsManagedSseEnabled")},
	{"SSE-SQS together with a KMS key", false, map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "SqsManagedSseEnabled": "true"},
		qlInvalidAttributeName("You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE.")},
	{"SSE-SQS TRUE together with a KMS key", false, map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "SqsManagedSseEnabled": "TRUE"},
		qlInvalidAttributeName("You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE.")},
	{"Policy not JSON", false, map[string]string{"Policy": "allow everyone"}, qlInvalidValueFor("Policy")},
	{"Policy a JSON array", false, map[string]string{"Policy": "[]"}, qlInvalidValueFor("Policy")},
	{"Policy JSON null", false, map[string]string{"Policy": "null"}, qlInvalidValueFor("Policy")},
	{"unknown name", false, map[string]string{"Bogus": "1"}, qlUnknownAttribute("Bogus")},
	{"name in another case", false, map[string]string{"visibilityTimeout": "60"}, qlUnknownAttribute("visibilityTimeout")},
	{"empty name", false, map[string]string{"": "1"}, qlUnknownAttribute("")},
	{"ContentBasedDeduplication on a standard queue", false, map[string]string{"ContentBasedDeduplication": "true"}, qlUnknownAttribute("ContentBasedDeduplication")},
	{"DeduplicationScope on a standard queue", false, map[string]string{"DeduplicationScope": "queue"},
		qlInvalidAttributeName("You can specify the DeduplicationScope only when FifoQueue is set to true.")},
	{"FifoThroughputLimit on a standard queue", false, map[string]string{"FifoThroughputLimit": "perQueue"},
		qlInvalidAttributeName("You can specify the FifoThroughputLimit only when FifoQueue is set to true.")},
	{"a FIFO-only attribute wins over a bad value", false, map[string]string{"ContentBasedDeduplication": "true", "DelaySeconds": "-1"}, qlUnknownAttribute("ContentBasedDeduplication")},
	{"ContentBasedDeduplication not a boolean", true, map[string]string{"ContentBasedDeduplication": "maybe"}, qlInvalidValueFor("ContentBasedDeduplication")},
	{"DeduplicationScope unknown", true, map[string]string{"DeduplicationScope": "group"}, qlInvalidValueFor("DeduplicationScope")},
	{"DeduplicationScope in another case", true, map[string]string{"DeduplicationScope": "MessageGroup"}, qlInvalidValueFor("DeduplicationScope")},
	{"FifoThroughputLimit unknown", true, map[string]string{"FifoThroughputLimit": "perGroup"}, qlInvalidValueFor("FifoThroughputLimit")},
	{"perMessageGroupId without messageGroup scope", true, map[string]string{"FifoThroughputLimit": "perMessageGroupId"},
		qlInvalidAttributeValue("Invalid value for the parameter FifoThroughputLimit. Reason: FifoThroughputLimit perMessageGroupId is only valid with DeduplicationScope messageGroup.")},
	{"perMessageGroupId with queue scope", true, map[string]string{"FifoThroughputLimit": "perMessageGroupId", "DeduplicationScope": "queue"},
		qlInvalidAttributeValue("Invalid value for the parameter FifoThroughputLimit. Reason: FifoThroughputLimit perMessageGroupId is only valid with DeduplicationScope messageGroup.")},
	{"FifoQueue not a boolean on a FIFO queue", true, map[string]string{"FifoQueue": "maybe"}, qlInvalidValueFor("FifoQueue")},
}

// qlReadOnlyAttributes are the attributes GetQueueAttributes reports but nobody may set.
var qlReadOnlyAttributes = []string{
	"All", "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed", "ApproximateNumberOfMessagesNotVisible",
	"CreatedTimestamp", "LastModifiedTimestamp", "QueueArn",
}

func TestCreateQueueAcceptsEveryValidAttributeValue(t *testing.T) {
	for _, tc := range qlAcceptedAttributes {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			name, attrs, fresh := "q", map[string]string{}, qlFreshStandard("q", qlStart)
			if tc.fifo {
				name, attrs["FifoQueue"], fresh = "q.fifo", "true", qlFreshFIFO("q.fifo", qlStart)
			}
			for k, v := range tc.attrs {
				attrs[k] = v
			}
			u := qlCreate(t, f, name, attrs)
			assert.Equal(t, qlWith(fresh, tc.shown), qlAttrs(t, f, u))
		})
	}
}

func TestSetQueueAttributesAcceptsEveryValidAttributeValue(t *testing.T) {
	for _, tc := range qlAcceptedAttributes {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			u, fresh := qlCreate(t, f, "q", nil), qlFreshStandard("q", qlStart)
			if tc.fifo {
				u, fresh = qlCreateFIFO(t, f, "q.fifo", nil), qlFreshFIFO("q.fifo", qlStart)
			}
			f.Advance(time.Minute)
			out, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: tc.attrs})
			require.NoError(t, err)
			assert.Equal(t, &sqs.SetQueueAttributesOutput{}, out)
			want := qlWith(fresh, tc.shown)
			want["LastModifiedTimestamp"] = qlSecondsAfterStart(time.Minute)
			assert.Equal(t, want, qlAttrs(t, f, u))
		})
	}
}

func TestCreateQueueRejectsInvalidAttributesAndCreatesNothing(t *testing.T) {
	for _, tc := range qlRejectedAttributes {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlOtherQueue(t, f)
			name, attrs := "q", tc.attrs
			if tc.fifo {
				name = "q.fifo"
				attrs = map[string]string{"FifoQueue": "true"}
				for k, v := range tc.attrs {
					attrs[k] = v
				}
			}
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
			qlRequireError(t, err, "CreateQueue", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestSetQueueAttributesRejectsInvalidAttributesAndChangesNothing(t *testing.T) {
	for _, tc := range qlRejectedAttributes {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlOtherQueue(t, f)
			var u string
			if tc.fifo {
				u = qlCreateFIFO(t, f, "q.fifo", map[string]string{"VisibilityTimeout": "40"})
			} else {
				u = qlCreate(t, f, "q", map[string]string{"VisibilityTimeout": "40"})
			}
			f.Advance(time.Minute)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: tc.attrs})
			qlRequireError(t, err, "SetQueueAttributes", tc.want)
			assert.Equal(t, before, qlState(t, f), "LastModifiedTimestamp included")
		})
	}
}

func TestCreateQueueRejectsReadOnlyAttributes(t *testing.T) {
	for _, name := range qlReadOnlyAttributes {
		t.Run(name, func(t *testing.T) {
			f := New()
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{name: "1"}})
			qlRequireError(t, err, "CreateQueue", qlUnknownAttribute(name))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestSetQueueAttributesRejectsReadOnlyAttributes(t *testing.T) {
	for _, name := range qlReadOnlyAttributes {
		t.Run(name, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "q", nil)
			before := qlState(t, f)
			// Even the value the attribute has now is rejected.
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{
				QueueUrl: aws.String(u), Attributes: map[string]string{name: before[u].Attributes[name]},
			})
			qlRequireError(t, err, "SetQueueAttributes", qlUnknownAttribute(name))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

// ---- SetQueueAttributes ----

func TestSetQueueAttributesIsAllOrNothing(t *testing.T) {
	// Attributes are checked in sorted order; each request has a valid attribute that sorts
	// before the bad one, so a partial apply would show.
	cases := []struct {
		desc  string
		fifo  bool
		attrs map[string]string
		want  qlErr
	}{
		{"bad value after good ones", false, map[string]string{"DelaySeconds": "5", "Policy": `{"Statement":[]}`, "VisibilityTimeout": "43201"}, qlInvalidValueFor("VisibilityTimeout")},
		{"unknown name after good ones", false, map[string]string{"DelaySeconds": "5", "MaximumMessageSize": "2048", "Zzz": "1"}, qlUnknownAttribute("Zzz")},
		{"read-only name after good ones", false, map[string]string{"DelaySeconds": "5", "QueueArn": qlARN("q")}, qlUnknownAttribute("QueueArn")},
		{"SSE conflict found after every value parsed", false, map[string]string{"DelaySeconds": "5", "KmsMasterKeyId": "k", "SqsManagedSseEnabled": "true", "VisibilityTimeout": "60"},
			qlInvalidAttributeName("You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE.")},
		{"bad redrive policy after good ones", false, map[string]string{"DelaySeconds": "5", "Policy": "", "RedrivePolicy": `{"maxReceiveCount":3}`},
			qlInvalidParameterValue(`Value {"maxReceiveCount":3} for parameter RedrivePolicy is invalid. Reason: Redrive policy does not contain mandatory attribute: deadLetterTargetArn.`)},
		{"FIFO throughput rule found after every value parsed", true, map[string]string{"ContentBasedDeduplication": "true", "FifoThroughputLimit": "perMessageGroupId", "VisibilityTimeout": "60"},
			qlInvalidAttributeValue("Invalid value for the parameter FifoThroughputLimit. Reason: FifoThroughputLimit perMessageGroupId is only valid with DeduplicationScope messageGroup.")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlCreate(t, f, "dlq", nil)
			var u string
			if tc.fifo {
				u = qlCreateFIFO(t, f, "q.fifo", nil)
			} else {
				u = qlCreate(t, f, "q", nil)
				qlSetAttrs(t, f, u, map[string]string{"Policy": `{"Version":"2012-10-17","Statement":[]}`,
					"RedrivePolicy": `{"deadLetterTargetArn":"` + qlARN("dlq") + `","maxReceiveCount":2}`})
			}
			f.Advance(time.Minute)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: tc.attrs})
			qlRequireError(t, err, "SetQueueAttributes", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestSetQueueAttributesUpdatesOnlyTheGivenAttributesAndLastModifiedTimestamp(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "q", map[string]string{"DelaySeconds": "5", "VisibilityTimeout": "60"})
	f.Advance(2 * time.Minute)
	qlSetAttrs(t, f, u, map[string]string{"VisibilityTimeout": "90", "MessageRetentionPeriod": "3600"})
	assert.Equal(t, qlWith(qlFreshStandard("q", qlStart), map[string]string{
		"DelaySeconds": "5", "VisibilityTimeout": "90", "MessageRetentionPeriod": "3600",
		"LastModifiedTimestamp": qlSecondsAfterStart(2 * time.Minute),
	}), qlAttrs(t, f, u))
}

func TestSetQueueAttributesWithAnEmptyMapChangesNothing(t *testing.T) {
	// UNVERIFIED on AWS (SPEC.md §5.6): an empty map is a no-op, LastModifiedTimestamp too.
	f := New()
	u := qlCreate(t, f, "q", nil)
	f.Advance(time.Minute)
	before := qlState(t, f)
	qlSetAttrs(t, f, u, map[string]string{})
	assert.Equal(t, before, qlState(t, f))
}

func TestSetQueueAttributesWithAnEmptyValueRemovesPolicyRedrivePolicyAndKmsMasterKeyId(t *testing.T) {
	f := New()
	qlCreate(t, f, "dlq", nil)
	policy := `{"Version":"2012-10-17","Id":"x","Statement":[]}`
	redrive := `{"deadLetterTargetArn":"` + qlARN("dlq") + `","maxReceiveCount":3}`
	u := qlCreate(t, f, "q", map[string]string{"Policy": policy, "RedrivePolicy": redrive, "KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600"})
	set := qlWith(qlFreshStandard("q", qlStart), map[string]string{
		"Policy": policy, "RedrivePolicy": redrive, "KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600", "SqsManagedSseEnabled": "false",
	})
	require.Equal(t, set, qlAttrs(t, f, u))
	cases := []struct {
		attr    string
		removed []string
	}{
		{"Policy", []string{"Policy"}},
		{"RedrivePolicy", []string{"RedrivePolicy"}},
		// KmsDataKeyReusePeriodSeconds is only shown while a key is set.
		{"KmsMasterKeyId", []string{"KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds"}},
	}
	want := set
	for _, tc := range cases {
		qlSetAttrs(t, f, u, map[string]string{tc.attr: ""})
		for _, r := range tc.removed {
			delete(want, r)
		}
		assert.Equal(t, want, qlAttrs(t, f, u), "after removing %s", tc.attr)
	}
	// Removing what is not there is fine.
	qlSetAttrs(t, f, u, map[string]string{"Policy": "", "RedrivePolicy": "", "KmsMasterKeyId": ""})
	assert.Equal(t, want, qlAttrs(t, f, u))
	// Removal is what the redrive listing sees too.
	out, err := f.ListDeadLetterSourceQueues(context.Background(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(qlURL("dlq"))})
	require.NoError(t, err)
	assert.Nil(t, out.QueueUrls)
}

func TestKmsDataKeyReusePeriodSecondsIsShownOnlyWhileAKmsKeyIsSet(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "q", nil)
	shown := func() map[string]string {
		return qlGetAttrs(t, f, u, types.QueueAttributeNameKmsDataKeyReusePeriodSeconds, types.QueueAttributeNameKmsMasterKeyId,
			types.QueueAttributeNameSqsManagedSseEnabled).Attributes
	}
	qlSetAttrs(t, f, u, map[string]string{"KmsDataKeyReusePeriodSeconds": "300"})
	assert.Equal(t, map[string]string{"SqsManagedSseEnabled": "true"}, shown())
	qlSetAttrs(t, f, u, map[string]string{"KmsDataKeyReusePeriodSeconds": "900"})
	assert.Equal(t, map[string]string{"SqsManagedSseEnabled": "true"}, shown())
	// The period set without a key applies once a key is set.
	qlSetAttrs(t, f, u, map[string]string{"KmsMasterKeyId": "alias/aws/sqs"})
	assert.Equal(t, map[string]string{"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "900", "SqsManagedSseEnabled": "false"}, shown())
	qlSetAttrs(t, f, u, map[string]string{"KmsMasterKeyId": ""})
	assert.Equal(t, map[string]string{"SqsManagedSseEnabled": "false"}, shown())
	qlSetAttrs(t, f, u, map[string]string{"SqsManagedSseEnabled": "true"})
	assert.Equal(t, map[string]string{"SqsManagedSseEnabled": "true"}, shown())
}

func TestSetQueueAttributesSwitchesBetweenSSEKindsOnlyOneAtATime(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreate(t, f, "q", map[string]string{"KmsMasterKeyId": "k1"})
	before := qlState(t, f)
	// Turning SQS-managed SSE on while the queue keeps its KMS key is the same conflict as
	// asking for both in one request.
	_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"SqsManagedSseEnabled": "true"}})
	qlRequireError(t, err, "SetQueueAttributes", qlInvalidAttributeName("You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE."))
	assert.Equal(t, before, qlState(t, f))

	// Removing the key in the same request makes the switch.
	qlSetAttrs(t, f, u, map[string]string{"SqsManagedSseEnabled": "true", "KmsMasterKeyId": ""})
	assert.Equal(t, qlFreshStandard("q", qlStart), qlAttrs(t, f, u))
	// And back: a key switches SQS-managed SSE off.
	qlSetAttrs(t, f, u, map[string]string{"KmsMasterKeyId": "k2"})
	assert.Equal(t, map[string]string{"KmsMasterKeyId": "k2", "SqsManagedSseEnabled": "false", "KmsDataKeyReusePeriodSeconds": "300"},
		qlGetAttrs(t, f, u, "KmsMasterKeyId", "SqsManagedSseEnabled", "KmsDataKeyReusePeriodSeconds").Attributes)
	// Changing the key keeps SSE-SQS off; SqsManagedSseEnabled=false is accepted alongside.
	qlSetAttrs(t, f, u, map[string]string{"KmsMasterKeyId": "k3", "SqsManagedSseEnabled": "false"})
	assert.Equal(t, map[string]string{"KmsMasterKeyId": "k3", "SqsManagedSseEnabled": "false"},
		qlGetAttrs(t, f, u, "KmsMasterKeyId", "SqsManagedSseEnabled").Attributes)
}

func TestSetQueueAttributesFifoQueueOnAStandardQueueFailsWithUnknownAttribute(t *testing.T) {
	for _, v := range []string{"true", "false", "TRUE"} {
		t.Run(v, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "q", nil)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"FifoQueue": v}})
			qlRequireError(t, err, "SetQueueAttributes", qlUnknownAttribute("FifoQueue"))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestSetQueueAttributesFifoQueueFalseOnAFIFOQueueCannotChangeTheQueueType(t *testing.T) {
	for _, v := range []string{"false", "False"} {
		t.Run(v, func(t *testing.T) {
			f := New()
			u := qlCreateFIFO(t, f, "q.fifo", nil)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"FifoQueue": v, "DelaySeconds": "5"}})
			qlRequireError(t, err, "SetQueueAttributes", qlInvalidAttributeValue("Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported."))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestSetQueueAttributesChangingVisibilityTimeoutDoesNotAffectMessagesInFlight(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "q", nil)
	qlSend(t, f, u, "m", 0)
	require.Len(t, qlReceive(t, f, u, 1), 1) // hidden for the queue's 30 s
	qlSetAttrs(t, f, u, map[string]string{"VisibilityTimeout": "300"})
	f.Advance(30 * time.Second)
	got := qlReceive(t, f, u, 1)
	require.Len(t, got, 1, "the in-flight message kept its 30 s")
	// The next receive uses the new timeout.
	f.Advance(299 * time.Second)
	assert.Empty(t, qlReceive(t, f, u, 1))
	f.Advance(time.Second)
	assert.Len(t, qlReceive(t, f, u, 1), 1)
}

func TestSetQueueAttributesDoesNotKeepTheCallersMap(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "q", nil)
	attrs := map[string]string{"VisibilityTimeout": "60"}
	qlSetAttrs(t, f, u, attrs)
	attrs["VisibilityTimeout"] = "1"
	assert.Equal(t, "60", qlAttrs(t, f, u)["VisibilityTimeout"])
}

func TestQueueAttributeOperationsOnAnUnknownQueueFailWithQueueDoesNotExist(t *testing.T) {
	ctx := context.Background()
	f := New()
	qlCreate(t, f, "q", nil)
	u := aws.String(qlURL("missing"))
	_, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: u, AttributeNames: []types.QueueAttributeName{"All"}})
	qlRequireError(t, err, "GetQueueAttributes", qlQueueDoesNotExist())
	_, err = f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: u})
	qlRequireError(t, err, "GetQueueAttributes", qlQueueDoesNotExist())
	// The queue is looked up before the attributes are checked.
	_, err = f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: u, Attributes: map[string]string{"Bogus": "1"}})
	qlRequireError(t, err, "SetQueueAttributes", qlQueueDoesNotExist())
	_, err = f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: u, Attributes: map[string]string{}})
	qlRequireError(t, err, "SetQueueAttributes", qlQueueDoesNotExist())
}

func TestQueueAttributeNamesCoverTheSDKEnum(t *testing.T) {
	// Every name of the SDK's QueueAttributeName enum is known to GetQueueAttributes.
	f := New()
	u := qlCreateFIFO(t, f, "q.fifo", nil)
	var names []types.QueueAttributeName
	for _, n := range types.QueueAttributeName("").Values() {
		if !strings.EqualFold(string(n), "All") {
			names = append(names, n)
		}
	}
	out := qlGetAttrs(t, f, u, names...)
	assert.Equal(t, qlFreshFIFO("q.fifo", qlStart), out.Attributes)
}

func TestSetQueueAttributesChecksTheFIFOThroughputRuleAgainstTheResultingSettings(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreateFIFO(t, f, "q.fifo", nil)
	// The scope set earlier counts: high throughput mode can be reached in two calls…
	qlSetAttrs(t, f, u, map[string]string{"DeduplicationScope": "messageGroup"})
	qlSetAttrs(t, f, u, map[string]string{"FifoThroughputLimit": "perMessageGroupId"})
	assert.Equal(t, map[string]string{"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"},
		qlGetAttrs(t, f, u, "DeduplicationScope", "FifoThroughputLimit").Attributes)
	// …and the scope cannot be narrowed while the limit needs it.
	before := qlState(t, f)
	_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"DeduplicationScope": "queue"}})
	qlRequireError(t, err, "SetQueueAttributes", qlInvalidAttributeValue("Invalid value for the parameter FifoThroughputLimit. Reason: FifoThroughputLimit perMessageGroupId is only valid with DeduplicationScope messageGroup."))
	assert.Equal(t, before, qlState(t, f))
	qlSetAttrs(t, f, u, map[string]string{"DeduplicationScope": "queue", "FifoThroughputLimit": "perQueue"})
	assert.Equal(t, qlFreshFIFO("q.fifo", qlStart), qlAttrs(t, f, u))
}
