package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Helpers shared by the queue-level tests (queues, attributes, permissions, urls, redrive).
// They carry a "ql" prefix so they never clash with other files' helpers.

// qlStart is DefaultStart in epoch seconds, the CreatedTimestamp of a queue made at once.
var qlStart = fmt.Sprint(DefaultStart.Unix())

// qlSecondsAfterStart is the epoch-seconds text of DefaultStart+d.
func qlSecondsAfterStart(d time.Duration) string { return fmt.Sprint(DefaultStart.Add(d).Unix()) }

func qlURL(name string) string { return "https://sqs.us-east-1.amazonaws.com/123456789012/" + name }
func qlARN(name string) string { return "arn:aws:sqs:us-east-1:123456789012:" + name }

// qlFreshStandard is GetQueueAttributes(All) of a standard queue created at createdAt (epoch
// seconds) with default attributes: exactly the 12 attributes SPEC.md §4 lists.
func qlFreshStandard(name, createdAt string) map[string]string {
	return map[string]string{
		"ApproximateNumberOfMessages":           "0",
		"ApproximateNumberOfMessagesDelayed":    "0",
		"ApproximateNumberOfMessagesNotVisible": "0",
		"CreatedTimestamp":                      createdAt,
		"DelaySeconds":                          "0",
		"LastModifiedTimestamp":                 createdAt,
		"MaximumMessageSize":                    "1048576",
		"MessageRetentionPeriod":                "345600",
		"QueueArn":                              qlARN(name),
		"ReceiveMessageWaitTimeSeconds":         "0",
		"SqsManagedSseEnabled":                  "true",
		"VisibilityTimeout":                     "30",
	}
}

// qlFreshFIFO is qlFreshStandard plus the four attributes a FIFO queue adds.
func qlFreshFIFO(name, createdAt string) map[string]string {
	m := qlFreshStandard(name, createdAt)
	m["ContentBasedDeduplication"] = "false"
	m["DeduplicationScope"] = "queue"
	m["FifoQueue"] = "true"
	m["FifoThroughputLimit"] = "perQueue"
	return m
}

// qlWith returns a copy of base with over applied; an empty value in over deletes the key.
func qlWith(base, over map[string]string) map[string]string {
	m := make(map[string]string, len(base)+len(over))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range over {
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

// qlCreate creates a queue and returns its URL.
func qlCreate(t *testing.T, f *Fake, name string, attrs map[string]string) string {
	t.Helper()
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	require.NoError(t, err)
	require.NotNil(t, out.QueueUrl)
	return *out.QueueUrl
}

// qlCreateFIFO creates a FIFO queue (the name must end in .fifo) and returns its URL.
func qlCreateFIFO(t *testing.T, f *Fake, name string, attrs map[string]string) string {
	t.Helper()
	return qlCreate(t, f, name, qlWith(map[string]string{"FifoQueue": "true"}, attrs))
}

// qlAttrs returns GetQueueAttributes(All) of a queue.
func qlAttrs(t *testing.T, f *Fake, url string) map[string]string {
	t.Helper()
	out, err := f.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{
		QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
	})
	require.NoError(t, err)
	return out.Attributes
}

// qlSetAttrs sets queue attributes and requires success.
func qlSetAttrs(t *testing.T, f *Fake, url string, attrs map[string]string) {
	t.Helper()
	_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: attrs})
	require.NoError(t, err)
}

// qlTags returns ListQueueTags of a queue.
func qlTags(t *testing.T, f *Fake, url string) map[string]string {
	t.Helper()
	out, err := f.ListQueueTags(context.Background(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)
	return out.Tags
}

// qlSend sends a message and returns its MessageId.
func qlSend(t *testing.T, f *Fake, url, body string, delay int32) string {
	t.Helper()
	out, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body), DelaySeconds: delay})
	require.NoError(t, err)
	return aws.ToString(out.MessageId)
}

// qlReceive receives up to max messages without waiting.
func qlReceive(t *testing.T, f *Fake, url string, max int32) []types.Message {
	t.Helper()
	out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: max})
	require.NoError(t, err)
	return out.Messages
}

// qlQueueState is everything the public API shows about one queue.
type qlQueueState struct {
	Attributes map[string]string
	Tags       map[string]string
}

// qlState snapshots every queue of f through the public API, keyed by URL, so a test can
// require that a failed call changed nothing at all.
func qlState(t *testing.T, f *Fake) map[string]qlQueueState {
	t.Helper()
	out, err := f.ListQueues(context.Background(), &sqs.ListQueuesInput{})
	require.NoError(t, err)
	state := make(map[string]qlQueueState, len(out.QueueUrls))
	for _, u := range out.QueueUrls {
		state[u] = qlQueueState{Attributes: qlAttrs(t, f, u), Tags: qlTags(t, f, u)}
	}
	return state
}

// qlErr is the error a caller of real SQS sees: the Go type of the API error inside the
// SDK's error chain, its ErrorCode(), its message and the HTTP status.
type qlErr struct {
	typ    string // "QueueDoesNotExist", …, or "GenericAPIError" for unmodeled codes
	code   string
	msg    string
	status int
}

func qlQueueDoesNotExist() qlErr {
	return qlErr{"QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist.", 400}
}

func qlInvalidParameterValue(msg string) qlErr {
	return qlErr{"GenericAPIError", "InvalidParameterValue", msg, 400}
}

func qlMissingParameter(name string) qlErr {
	return qlErr{"GenericAPIError", "MissingParameter", "The request must contain the parameter " + name + ".", 400}
}

func qlInvalidAttributeName(msg string) qlErr {
	return qlErr{"InvalidAttributeName", "InvalidAttributeName", msg, 400}
}

func qlUnknownAttribute(name string) qlErr {
	return qlInvalidAttributeName("Unknown Attribute " + name + ".")
}

func qlInvalidAttributeValue(msg string) qlErr {
	return qlErr{"InvalidAttributeValue", "InvalidAttributeValue", msg, 400}
}

// qlInvalidValueFor is InvalidAttributeValue "Invalid value for the parameter <name>.".
func qlInvalidValueFor(name string) qlErr {
	return qlInvalidAttributeValue("Invalid value for the parameter " + name + ".")
}

func qlQueueAlreadyExists(attr string) qlErr {
	return qlErr{"QueueNameExists", "QueueAlreadyExists", "A queue already exists with the same name and a different value for attribute " + attr, 400}
}

func qlQueueDeletedRecently() qlErr {
	return qlErr{"QueueDeletedRecently", "AWS.SimpleQueueService.QueueDeletedRecently",
		"You must wait 60 seconds after deleting a queue before you can create another with the same name.", 400}
}

func qlPurgeQueueInProgress(name string) qlErr {
	return qlPurgeQueueInProgressEvery(name, "60 seconds")
}

// qlPurgeQueueInProgressEvery is PurgeQueueInProgress under WithPurgeCooldown.
func qlPurgeQueueInProgressEvery(name, every string) qlErr {
	return qlErr{"PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress",
		"Only one PurgeQueue operation on " + name + " is allowed every " + every + ".", 403}
}

func qlOverLimit(msg string) qlErr { return qlErr{"OverLimit", "OverLimit", msg, 403} }

// qlAs is errors.As to the concrete error type E.
func qlAs[E error](t *testing.T, err error) E {
	t.Helper()
	var e E
	require.Truef(t, errors.As(err, &e), "errors.As(%T) failed for %v", e, err)
	return e
}

// qlAPIError finds the API error of err with errors.As to the concrete type typ names.
func qlAPIError(t *testing.T, err error, typ string) smithy.APIError {
	t.Helper()
	switch typ {
	case "QueueDoesNotExist":
		return qlAs[*types.QueueDoesNotExist](t, err)
	case "QueueNameExists":
		return qlAs[*types.QueueNameExists](t, err)
	case "QueueDeletedRecently":
		return qlAs[*types.QueueDeletedRecently](t, err)
	case "PurgeQueueInProgress":
		return qlAs[*types.PurgeQueueInProgress](t, err)
	case "InvalidAttributeName":
		return qlAs[*types.InvalidAttributeName](t, err)
	case "InvalidAttributeValue":
		return qlAs[*types.InvalidAttributeValue](t, err)
	case "OverLimit":
		return qlAs[*types.OverLimit](t, err)
	case "GenericAPIError":
		return qlAs[*smithy.GenericAPIError](t, err)
	}
	t.Fatalf("qlAPIError: no case for %q", typ)
	return nil
}

// qlRequireError requires err to be exactly what the real client returns for want from op:
// *smithy.OperationError → *awshttp.ResponseError with the HTTP status and a request id →
// the API error of the right Go type with ErrorCode(), message and client fault, and an
// Error() text byte-identical to the SDK's.
func qlRequireError(t *testing.T, err error, op string, want qlErr) {
	t.Helper()
	require.Error(t, err)
	oe := qlAs[*smithy.OperationError](t, err)
	assert.Equal(t, "SQS", oe.ServiceID)
	assert.Equal(t, op, oe.OperationName)
	re := qlAs[*awshttp.ResponseError](t, err)
	assert.Equal(t, want.status, re.HTTPStatusCode())
	assert.NotEmpty(t, re.ServiceRequestID())
	api := qlAPIError(t, err, want.typ)
	assert.Equal(t, want.code, api.ErrorCode())
	assert.Equal(t, want.msg, api.ErrorMessage())
	assert.Equal(t, smithy.FaultClient, api.ErrorFault())
	detail := want.code + ": " + want.msg
	if want.typ == "GenericAPIError" {
		detail = "api error " + detail
	}
	assert.Equal(t, fmt.Sprintf("operation error SQS: %s, https response error StatusCode: %d, RequestID: %s, %s",
		op, want.status, re.ServiceRequestID(), detail), err.Error())
}

// qlOtherQueue adds a queue with tags and non-default attributes, so that state snapshots of
// a test cover more than the queue under test.
func qlOtherQueue(t *testing.T, f *Fake) string {
	t.Helper()
	u := qlCreate(t, f, "bystander", map[string]string{"VisibilityTimeout": "45", "DelaySeconds": "3"})
	_, err := f.TagQueue(context.Background(), &sqs.TagQueueInput{QueueUrl: aws.String(u), Tags: map[string]string{"team": "infra"}})
	require.NoError(t, err)
	return u
}

// ---- CreateQueue ----

func TestCreateQueueReturnsTheURLOfANewQueueWithDefaultAttributes(t *testing.T) {
	f := New()
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	assert.Equal(t, &sqs.CreateQueueOutput{QueueUrl: aws.String(qlURL("jobs"))}, out)
	assert.Equal(t, qlFreshStandard("jobs", qlStart), qlAttrs(t, f, qlURL("jobs")))
	assert.Nil(t, qlTags(t, f, qlURL("jobs")))
}

func TestCreateQueueAcceptsValidNames(t *testing.T) {
	cases := []struct {
		desc  string
		name  string
		attrs map[string]string
		fifo  bool
	}{
		{"one character", "a", nil, false},
		{"80 characters", strings.Repeat("a", 80), nil, false},
		{"every allowed character", "AZaz09-_", nil, false},
		{"empty attribute map", "empty-attrs", map[string]string{}, false},
		{"FIFO with suffix", "jobs.fifo", map[string]string{"FifoQueue": "true"}, true},
		{"FIFO of 80 characters including the suffix", strings.Repeat("f", 75) + ".fifo", map[string]string{"FifoQueue": "true"}, true},
		{"FIFO of one character before the suffix", "x.fifo", map[string]string{"FifoQueue": "true"}, true},
		{"FifoQueue TRUE", "upper.fifo", map[string]string{"FifoQueue": "TRUE"}, true},
		{"FifoQueue True", "title.fifo", map[string]string{"FifoQueue": "True"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, tc.name, tc.attrs)
			assert.Equal(t, qlURL(tc.name), u)
			want := qlFreshStandard(tc.name, qlStart)
			if tc.fifo {
				want = qlFreshFIFO(tc.name, qlStart)
			}
			assert.Equal(t, want, qlAttrs(t, f, u))
		})
	}
}

func TestCreateQueueRejectsInvalidNamesForStandardAndFIFOQueues(t *testing.T) {
	const standardRule = "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
	const fifoRule = "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length."
	fifo := map[string]string{"FifoQueue": "true"}
	cases := []struct {
		desc  string
		name  string
		attrs map[string]string
		want  qlErr
	}{
		{"empty", "", nil, qlInvalidParameterValue(standardRule)},
		{"81 characters", strings.Repeat("a", 81), nil, qlInvalidParameterValue(standardRule)},
		{"dot", "a.b", nil, qlInvalidParameterValue(standardRule)},
		{"space", "a b", nil, qlInvalidParameterValue(standardRule)},
		{"slash", "a/b", nil, qlInvalidParameterValue(standardRule)},
		{"non-ASCII letter", "naïve", nil, qlInvalidParameterValue(standardRule)},
		{"standard queue with .fifo suffix", "jobs.fifo", nil, qlInvalidParameterValue(standardRule)},
		{"FifoQueue false with .fifo suffix", "jobs.fifo", map[string]string{"FifoQueue": "false"}, qlInvalidParameterValue(standardRule)},
		{"FIFO queue without suffix", "jobs", fifo, qlInvalidParameterValue(fifoRule)},
		{"FIFO queue with upper-case suffix", "jobs.FIFO", fifo, qlInvalidParameterValue(fifoRule)},
		{"FIFO queue that is only the suffix", ".fifo", fifo, qlInvalidParameterValue(fifoRule)},
		{"FIFO queue of 81 characters including the suffix", strings.Repeat("f", 76) + ".fifo", fifo, qlInvalidParameterValue(fifoRule)},
		{"FIFO queue with a dot before the suffix", "a.b.fifo", fifo, qlInvalidParameterValue(fifoRule)},
		{"FifoQueue not a boolean", "jobs.fifo", map[string]string{"FifoQueue": "yes"}, qlInvalidValueFor("FifoQueue")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlOtherQueue(t, f)
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(tc.name), Attributes: tc.attrs})
			qlRequireError(t, err, "CreateQueue", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestCreateQueueWithFifoQueueOnAStandardQueueFailsWithUnknownAttribute(t *testing.T) {
	for _, v := range []string{"false", "False", "FALSE"} {
		t.Run(v, func(t *testing.T) {
			f := New()
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{
				QueueName: aws.String("jobs"), Attributes: map[string]string{"FifoQueue": v},
			})
			qlRequireError(t, err, "CreateQueue", qlUnknownAttribute("FifoQueue"))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestCreateQueueIsIdempotentWithSameAttributes(t *testing.T) {
	cases := []struct {
		desc         string
		name         string
		first, again map[string]string
	}{
		{"no attributes either time", "plain", nil, nil},
		{"same attributes", "same", map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5"}, map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5"}},
		{"only some of the attributes again", "subset", map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5"}, map[string]string{"VisibilityTimeout": "60"}},
		{"no attributes the second time", "none-again", map[string]string{"VisibilityTimeout": "60"}, nil},
		{"defaults given explicitly", "defaults", nil, map[string]string{
			"VisibilityTimeout": "30", "MaximumMessageSize": "1048576", "MessageRetentionPeriod": "345600",
			"DelaySeconds": "0", "ReceiveMessageWaitTimeSeconds": "0", "SqsManagedSseEnabled": "true",
		}},
		{"boolean in another case", "bools", map[string]string{"SqsManagedSseEnabled": "false"}, map[string]string{"SqsManagedSseEnabled": "FALSE"}},
		{"FIFO with the same attributes", "same.fifo",
			map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"},
			map[string]string{"FifoQueue": "TRUE", "ContentBasedDeduplication": "True"}},
		{"FIFO defaults given explicitly", "defaults.fifo",
			map[string]string{"FifoQueue": "true"},
			map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "false", "DeduplicationScope": "queue", "FifoThroughputLimit": "perQueue"}},
		{"redrive policy with maxReceiveCount as a string, then as a number", "redriven",
			map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + qlARN("dlq") + `","maxReceiveCount":"4"}`},
			map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + qlARN("dlq") + `","maxReceiveCount":4}`}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlCreate(t, f, "dlq", nil)
			u := qlCreate(t, f, tc.name, tc.first)
			before := qlState(t, f)
			f.Advance(10 * time.Second)
			out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(tc.name), Attributes: tc.again})
			require.NoError(t, err)
			assert.Equal(t, &sqs.CreateQueueOutput{QueueUrl: aws.String(u)}, out)
			assert.Equal(t, before, qlState(t, f), "an idempotent CreateQueue changes nothing, not even LastModifiedTimestamp")
		})
	}
}

func TestCreateQueueWithADifferentAttributeFailsWithQueueAlreadyExists(t *testing.T) {
	dlqPolicy := func(n int) string {
		return fmt.Sprintf(`{"deadLetterTargetArn":"%s","maxReceiveCount":%d}`, qlARN("dlq"), n)
	}
	cases := []struct {
		desc         string
		name         string
		first, again map[string]string
		attr         string
	}{
		{"value differs from a default", "vt", nil, map[string]string{"VisibilityTimeout": "60"}, "VisibilityTimeout"},
		{"value differs from one given before", "vt2", map[string]string{"VisibilityTimeout": "60"}, map[string]string{"VisibilityTimeout": "30"}, "VisibilityTimeout"},
		{"matching attribute does not hide a differing one", "mixed", map[string]string{"VisibilityTimeout": "60"},
			map[string]string{"VisibilityTimeout": "60", "MessageRetentionPeriod": "60"}, "MessageRetentionPeriod"},
		{"policy where there is none", "policy", nil, map[string]string{"Policy": `{"Version":"2012-10-17","Statement":[]}`}, "Policy"},
		{"KMS key where there is none", "kms", nil, map[string]string{"KmsMasterKeyId": "alias/aws/sqs"}, "KmsMasterKeyId"},
		{"SSE off where it is on", "sse", nil, map[string]string{"SqsManagedSseEnabled": "false"}, "SqsManagedSseEnabled"},
		{"redrive policy with another maxReceiveCount", "redrive",
			map[string]string{"RedrivePolicy": dlqPolicy(3)}, map[string]string{"RedrivePolicy": dlqPolicy(5)}, "RedrivePolicy"},
		{"redrive policy where there is none", "redrive2", nil, map[string]string{"RedrivePolicy": dlqPolicy(5)}, "RedrivePolicy"},
		{"FIFO content-based deduplication", "cbd.fifo",
			map[string]string{"FifoQueue": "true"}, map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}, "ContentBasedDeduplication"},
		{"FIFO deduplication scope", "scope.fifo",
			map[string]string{"FifoQueue": "true"}, map[string]string{"FifoQueue": "true", "DeduplicationScope": "messageGroup"}, "DeduplicationScope"},
		// Which attribute AWS names when several differ is unverified (SPEC.md §5.1); the
		// fake names the first in sorted order.
		{"several differ: the first in sorted order is named", "several", nil,
			map[string]string{"VisibilityTimeout": "60", "DelaySeconds": "5", "MaximumMessageSize": "2048"}, "DelaySeconds"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlCreate(t, f, "dlq", nil)
			qlCreate(t, f, tc.name, tc.first)
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(tc.name), Attributes: tc.again})
			qlRequireError(t, err, "CreateQueue", qlQueueAlreadyExists(tc.attr))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestCreateQueueComparesAttributesWithTheirCurrentValuesAfterSetQueueAttributes(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreate(t, f, "jobs", map[string]string{"VisibilityTimeout": "30"})
	qlSetAttrs(t, f, u, map[string]string{"VisibilityTimeout": "60"})
	before := qlState(t, f)

	// The value the queue was created with no longer matches.
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{"VisibilityTimeout": "30"}})
	qlRequireError(t, err, "CreateQueue", qlQueueAlreadyExists("VisibilityTimeout"))

	// The current value does, and so does a request without attributes.
	for _, attrs := range []map[string]string{{"VisibilityTimeout": "60"}, nil} {
		out, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: attrs})
		require.NoError(t, err)
		assert.Equal(t, u, aws.ToString(out.QueueUrl))
	}
	assert.Equal(t, before, qlState(t, f))
}

func TestCreateQueueValidatesAttributesBeforeComparingThemWithAnExistingQueue(t *testing.T) {
	f := New()
	qlCreate(t, f, "jobs", nil)
	before := qlState(t, f)
	_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{
		QueueName: aws.String("jobs"), Attributes: map[string]string{"VisibilityTimeout": "43201"},
	})
	qlRequireError(t, err, "CreateQueue", qlInvalidValueFor("VisibilityTimeout"))
	assert.Equal(t, before, qlState(t, f))
}

func TestCreateQueueIgnoresTagsOnAnIdempotentRecreate(t *testing.T) {
	ctx := context.Background()
	f := New()
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Tags: map[string]string{"team": "a"}})
	require.NoError(t, err)
	// UNVERIFIED on AWS (SPEC.md §5.1): tags of a re-create are ignored, even invalid ones.
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Tags: map[string]string{"team": "b", "aws:x": "y"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"team": "a"}, qlTags(t, f, qlURL("jobs")))
}

func TestCreateQueueAppliesTags(t *testing.T) {
	cases := []struct {
		desc string
		tags map[string]string
		want map[string]string
	}{
		{"nil tags", nil, nil},
		{"empty tags", map[string]string{}, nil},
		{"several tags", map[string]string{"team": "infra", "Team": "Infra", "cost-center": ""}, map[string]string{"team": "infra", "Team": "Infra", "cost-center": ""}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Tags: tc.tags})
			require.NoError(t, err)
			assert.Equal(t, tc.want, qlTags(t, f, qlURL("jobs")))
		})
	}
}

func TestCreateQueueWithInvalidTagsCreatesNothing(t *testing.T) {
	tooMany := map[string]string{}
	for i := range 51 {
		tooMany[fmt.Sprintf("k%02d", i)] = "v"
	}
	cases := []struct {
		desc string
		tags map[string]string
		want qlErr
	}{
		{"empty key", map[string]string{"": "v"}, qlInvalidParameterValue("Tag keys must be between 1 and 128 characters in length.")},
		{"reserved prefix", map[string]string{"aws:owner": "v"}, qlInvalidParameterValue("Tag keys must not start with the reserved prefix aws:.")},
		{"more than 50 tags", tooMany, qlInvalidParameterValue("Too many tags added for queue jobs.")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlOtherQueue(t, f)
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Tags: tc.tags})
			qlRequireError(t, err, "CreateQueue", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestCreateQueueDoesNotKeepTheCallersMaps(t *testing.T) {
	f := New()
	attrs := map[string]string{"VisibilityTimeout": "60"}
	tags := map[string]string{"team": "a"}
	_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: attrs, Tags: tags})
	require.NoError(t, err)
	attrs["VisibilityTimeout"] = "1"
	tags["team"] = "b"
	tags["new"] = "c"
	assert.Equal(t, "60", qlAttrs(t, f, qlURL("jobs"))["VisibilityTimeout"])
	assert.Equal(t, map[string]string{"team": "a"}, qlTags(t, f, qlURL("jobs")))
}

func TestCreateQueueWithin60SecondsOfDeleteQueueFailsWithQueueDeletedRecently(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreate(t, f, "jobs", map[string]string{"VisibilityTimeout": "60"})
	_, err := f.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(u), Tags: map[string]string{"team": "a"}})
	require.NoError(t, err)
	qlSend(t, f, u, "left behind", 0)
	_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	qlOtherQueue(t, f)

	for _, wait := range []time.Duration{0, time.Second, 59*time.Second - time.Nanosecond} {
		f.Advance(wait)
		before := qlState(t, f)
		for _, attrs := range []map[string]string{nil, {"VisibilityTimeout": "60"}, {"VisibilityTimeout": "10"}} {
			_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: attrs})
			qlRequireError(t, err, "CreateQueue", qlQueueDeletedRecently())
		}
		assert.Equal(t, before, qlState(t, f))
	}
	// Other names are not affected.
	qlCreate(t, f, "jobs2", nil)

	f.Advance(time.Nanosecond) // exactly 60 s after the delete
	out, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	assert.Equal(t, u, aws.ToString(out.QueueUrl))
	// A new queue: default attributes, new timestamps, no tags, no messages.
	assert.Equal(t, qlFreshStandard("jobs", qlSecondsAfterStart(60*time.Second)), qlAttrs(t, f, u))
	assert.Nil(t, qlTags(t, f, u))
	assert.Empty(t, qlReceive(t, f, u, 10))
}

// ---- GetQueueUrl ----

func TestGetQueueUrlReturnsTheURLOfAnExistingQueue(t *testing.T) {
	f := New()
	qlCreate(t, f, "jobs", nil)
	qlCreateFIFO(t, f, "jobs.fifo", nil)
	cases := []struct {
		desc string
		in   *sqs.GetQueueUrlInput
		want string
	}{
		{"by name", &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")}, qlURL("jobs")},
		{"FIFO by name", &sqs.GetQueueUrlInput{QueueName: aws.String("jobs.fifo")}, qlURL("jobs.fifo")},
		{"with the fake's own account as owner", &sqs.GetQueueUrlInput{QueueName: aws.String("jobs"), QueueOwnerAWSAccountId: aws.String(DefaultAccountID)}, qlURL("jobs")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			out, err := f.GetQueueUrl(context.Background(), tc.in)
			require.NoError(t, err)
			assert.Equal(t, &sqs.GetQueueUrlOutput{QueueUrl: aws.String(tc.want)}, out)
		})
	}
}

func TestGetQueueUrlFailsWithQueueDoesNotExist(t *testing.T) {
	f := New()
	qlCreate(t, f, "jobs", nil)
	gone := qlCreate(t, f, "gone", nil)
	_, err := f.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(gone)})
	require.NoError(t, err)
	cases := []struct {
		desc string
		in   *sqs.GetQueueUrlInput
	}{
		{"unknown name", &sqs.GetQueueUrlInput{QueueName: aws.String("missing")}},
		{"name in another case", &sqs.GetQueueUrlInput{QueueName: aws.String("Jobs")}},
		{"name with a .fifo suffix", &sqs.GetQueueUrlInput{QueueName: aws.String("jobs.fifo")}},
		{"empty name", &sqs.GetQueueUrlInput{QueueName: aws.String("")}},
		{"deleted queue", &sqs.GetQueueUrlInput{QueueName: aws.String("gone")}},
		{"another owner account", &sqs.GetQueueUrlInput{QueueName: aws.String("jobs"), QueueOwnerAWSAccountId: aws.String("210987654321")}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := f.GetQueueUrl(context.Background(), tc.in)
			qlRequireError(t, err, "GetQueueUrl", qlQueueDoesNotExist())
		})
	}
}

// ---- ListQueues ----

// qlListAll lists queue URLs with one ListQueues call.
func qlListAll(t *testing.T, f *Fake, in *sqs.ListQueuesInput) *sqs.ListQueuesOutput {
	t.Helper()
	out, err := f.ListQueues(context.Background(), in)
	require.NoError(t, err)
	return out
}

func qlURLs(names ...string) []string {
	urls := make([]string, len(names))
	for i, n := range names {
		urls[i] = qlURL(n)
	}
	return urls
}

func TestListQueuesReturnsURLsInLexicographicOrderOfNames(t *testing.T) {
	f := New()
	for _, n := range []string{"orders", "Zeta", "alpha", "orders-dlq", "beta.fifo", "a", "B", "order"} {
		if strings.HasSuffix(n, ".fifo") {
			qlCreateFIFO(t, f, n, nil)
		} else {
			qlCreate(t, f, n, nil)
		}
	}
	want := &sqs.ListQueuesOutput{QueueUrls: qlURLs("B", "Zeta", "a", "alpha", "beta.fifo", "order", "orders", "orders-dlq")}
	assert.Equal(t, want, qlListAll(t, f, &sqs.ListQueuesInput{}))
	assert.Equal(t, want, qlListAll(t, f, nil), "a nil input lists everything")
}

func TestListQueuesFiltersByACaseSensitivePrefix(t *testing.T) {
	f := New()
	for _, n := range []string{"orders", "orders-dlq", "Orders", "order", "jobs"} {
		qlCreate(t, f, n, nil)
	}
	cases := []struct {
		prefix string
		want   []string
	}{
		{"", qlURLs("Orders", "jobs", "order", "orders", "orders-dlq")},
		{"order", qlURLs("order", "orders", "orders-dlq")},
		{"orders", qlURLs("orders", "orders-dlq")},
		{"Order", qlURLs("Orders")},
		{"orders-dlq", qlURLs("orders-dlq")},
		{"j", qlURLs("jobs")},
		{"x", nil},
		{"orders-dlq-", nil},
	}
	for _, tc := range cases {
		t.Run(tc.prefix, func(t *testing.T) {
			out := qlListAll(t, f, &sqs.ListQueuesInput{QueueNamePrefix: aws.String(tc.prefix)})
			assert.Equal(t, &sqs.ListQueuesOutput{QueueUrls: tc.want}, out)
		})
	}
}

func TestListQueuesWithoutMatchesHasNilQueueUrls(t *testing.T) {
	empty := New()
	withQueues := New()
	qlCreate(t, withQueues, "jobs", nil)
	cases := []struct {
		desc string
		f    *Fake
		in   *sqs.ListQueuesInput
	}{
		{"no queues", empty, &sqs.ListQueuesInput{}},
		{"no queues, with MaxResults", empty, &sqs.ListQueuesInput{MaxResults: aws.Int32(10)}},
		{"prefix matching nothing", withQueues, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("x")}},
		{"prefix matching nothing, with MaxResults", withQueues, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("x"), MaxResults: aws.Int32(1)}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			out := qlListAll(t, tc.f, tc.in)
			assert.Equal(t, &sqs.ListQueuesOutput{}, out)
			assert.Nil(t, out.QueueUrls)
		})
	}
}

func TestListQueuesWithoutMaxResultsReturnsAtMost1000AndNeverANextToken(t *testing.T) {
	f := New()
	var names []string
	for i := range 1001 {
		name := fmt.Sprintf("q%04d", i)
		names = append(names, name)
		qlCreate(t, f, name, nil)
	}
	out := qlListAll(t, f, &sqs.ListQueuesInput{})
	assert.Equal(t, qlURLs(names[:1000]...), out.QueueUrls)
	assert.Nil(t, out.NextToken)
}

func TestListQueuesPagesWithMaxResultsAndNextToken(t *testing.T) {
	f := New()
	for _, n := range []string{"e", "c", "a", "d", "b"} {
		qlCreate(t, f, n, nil)
	}
	type page struct {
		urls     []string
		hasToken bool
	}
	cases := []struct {
		max   int32
		pages []page
	}{
		{1, []page{{qlURLs("a"), true}, {qlURLs("b"), true}, {qlURLs("c"), true}, {qlURLs("d"), true}, {qlURLs("e"), false}}},
		{2, []page{{qlURLs("a", "b"), true}, {qlURLs("c", "d"), true}, {qlURLs("e"), false}}},
		{4, []page{{qlURLs("a", "b", "c", "d"), true}, {qlURLs("e"), false}}},
		{5, []page{{qlURLs("a", "b", "c", "d", "e"), false}}},
		{1000, []page{{qlURLs("a", "b", "c", "d", "e"), false}}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			var token *string
			for i, want := range tc.pages {
				out := qlListAll(t, f, &sqs.ListQueuesInput{MaxResults: aws.Int32(tc.max), NextToken: token})
				assert.Equal(t, want.urls, out.QueueUrls, "page %d", i)
				if want.hasToken {
					require.NotNil(t, out.NextToken, "page %d", i)
					assert.NotEmpty(t, *out.NextToken)
				} else {
					assert.Nil(t, out.NextToken, "page %d", i)
				}
				token = out.NextToken
			}
		})
	}
}

func TestListQueuesNextTokenKeepsItsPlaceWhenQueuesChange(t *testing.T) {
	ctx := context.Background()
	f := New()
	for _, n := range []string{"a", "b", "c", "d"} {
		qlCreate(t, f, n, nil)
	}
	first := qlListAll(t, f, &sqs.ListQueuesInput{MaxResults: aws.Int32(2)})
	require.Equal(t, qlURLs("a", "b"), first.QueueUrls)
	// The last queue returned goes away and one sorting before the cursor appears.
	_, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(qlURL("b"))})
	require.NoError(t, err)
	qlCreate(t, f, "aa", nil)
	second := qlListAll(t, f, &sqs.ListQueuesInput{MaxResults: aws.Int32(2), NextToken: first.NextToken})
	assert.Equal(t, &sqs.ListQueuesOutput{QueueUrls: qlURLs("c", "d")}, second)
}

func TestListQueuesNextTokenWithAPrefixContinuesWithinThePrefix(t *testing.T) {
	f := New()
	for _, n := range []string{"a1", "b1", "b2", "b3", "c1"} {
		qlCreate(t, f, n, nil)
	}
	first := qlListAll(t, f, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("b"), MaxResults: aws.Int32(2)})
	assert.Equal(t, qlURLs("b1", "b2"), first.QueueUrls)
	require.NotNil(t, first.NextToken)
	second := qlListAll(t, f, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("b"), MaxResults: aws.Int32(2), NextToken: first.NextToken})
	assert.Equal(t, &sqs.ListQueuesOutput{QueueUrls: qlURLs("b3")}, second)
}

func TestListQueuesPaginatorPagesThrough25QueuesTenAtATime(t *testing.T) {
	ctx := context.Background()
	f := New()
	var names []string
	for i := range 25 {
		names = append(names, fmt.Sprintf("queue-%02d", i))
	}
	for _, i := range []int{7, 24, 0, 13, 3, 19, 1, 22, 9, 16, 5, 11, 2, 20, 8, 15, 4, 23, 10, 18, 6, 12, 21, 14, 17} {
		qlCreate(t, f, names[i], nil)
	}
	p := sqs.NewListQueuesPaginator(f, &sqs.ListQueuesInput{}, func(o *sqs.ListQueuesPaginatorOptions) { o.Limit = 10 })
	var pages [][]string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		require.NoError(t, err)
		pages = append(pages, page.QueueUrls)
	}
	assert.Equal(t, [][]string{qlURLs(names[:10]...), qlURLs(names[10:20]...), qlURLs(names[20:]...)}, pages)
}

func TestListQueuesRejectsInvalidMaxResultsAndNextToken(t *testing.T) {
	f := New()
	qlCreate(t, f, "jobs", nil)
	// The texts are unverified against AWS (SPEC.md §5.3, §13).
	cases := []struct {
		desc string
		in   *sqs.ListQueuesInput
		want qlErr
	}{
		{"MaxResults 0", &sqs.ListQueuesInput{MaxResults: aws.Int32(0)},
			qlInvalidParameterValue("Value 0 for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.")},
		{"MaxResults -1", &sqs.ListQueuesInput{MaxResults: aws.Int32(-1)},
			qlInvalidParameterValue("Value -1 for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.")},
		{"MaxResults 1001", &sqs.ListQueuesInput{MaxResults: aws.Int32(1001)},
			qlInvalidParameterValue("Value 1001 for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.")},
		{"NextToken not base64", &sqs.ListQueuesInput{MaxResults: aws.Int32(1), NextToken: aws.String("!!!")},
			qlInvalidParameterValue("Invalid NextToken value.")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := f.ListQueues(context.Background(), tc.in)
			qlRequireError(t, err, "ListQueues", tc.want)
		})
	}
}

// ---- DeleteQueue ----

func TestDeleteQueueRemovesTheQueueWithItsMessagesAndTags(t *testing.T) {
	ctx := context.Background()
	f := New()
	other := qlOtherQueue(t, f)
	u := qlCreate(t, f, "jobs", nil)
	_, err := f.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(u), Tags: map[string]string{"team": "a"}})
	require.NoError(t, err)
	qlSend(t, f, u, "visible", 0)
	qlSend(t, f, u, "delayed", 30)
	qlSend(t, f, u, "in flight", 0)
	require.Len(t, qlReceive(t, f, u, 1), 1)
	otherBefore := qlState(t, f)[other]

	out, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	assert.Equal(t, &sqs.DeleteQueueOutput{}, out)

	assert.Equal(t, map[string]qlQueueState{other: otherBefore}, qlState(t, f), "only the other queue is left, unchanged")
	_, err = f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")})
	qlRequireError(t, err, "GetQueueUrl", qlQueueDoesNotExist())
	_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
	qlRequireError(t, err, "DeleteQueue", qlQueueDoesNotExist())

	f.Advance(60 * time.Second)
	qlCreate(t, f, "jobs", nil)
	assert.Nil(t, qlTags(t, f, u))
	assert.Equal(t, qlFreshStandard("jobs", qlSecondsAfterStart(60*time.Second)), qlAttrs(t, f, u))
	f.Advance(time.Hour)
	assert.Empty(t, qlReceive(t, f, u, 10), "no message of the deleted queue comes back")
}

func TestDeleteQueueOfAnUnknownQueueFailsWithQueueDoesNotExist(t *testing.T) {
	f := New()
	qlOtherQueue(t, f)
	before := qlState(t, f)
	for _, u := range []string{qlURL("missing"), "missing", qlURL("Bystander")} {
		_, err := f.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
		qlRequireError(t, err, "DeleteQueue", qlQueueDoesNotExist())
	}
	assert.Equal(t, before, qlState(t, f))
}

func TestDeleteQueueEndsParkedLongPollsWithoutMessages(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	type result struct {
		out *sqs.ReceiveMessageOutput
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(u), WaitTimeSeconds: 20})
		done <- result{out, err}
	}()
	require.NoError(t, f.WaitForPollers(ctx, 1))
	_, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	select {
	case r := <-done:
		require.NoError(t, r.err)
		assert.Equal(t, &sqs.ReceiveMessageOutput{}, r.out)
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll did not end when its queue was deleted")
	}
	assert.Equal(t, 0, f.Pollers())
}

// ---- PurgeQueue ----

func TestPurgeQueueDeletesVisibleInFlightAndDelayedMessages(t *testing.T) {
	ctx := context.Background()
	f := New()
	other := qlOtherQueue(t, f)
	qlSend(t, f, other, "stays", 0)
	u := qlCreate(t, f, "jobs", nil)
	for _, b := range []string{"v1", "v2", "in flight"} {
		qlSend(t, f, u, b, 0)
	}
	qlSend(t, f, u, "delayed", 120)
	received := qlReceive(t, f, u, 1)
	require.Len(t, received, 1)
	counts := func() [3]string {
		a := qlAttrs(t, f, u)
		return [3]string{a["ApproximateNumberOfMessages"], a["ApproximateNumberOfMessagesNotVisible"], a["ApproximateNumberOfMessagesDelayed"]}
	}
	require.Equal(t, [3]string{"2", "1", "1"}, counts())
	otherBefore := qlState(t, f)[other]

	out, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	assert.Equal(t, &sqs.PurgeQueueOutput{}, out)
	assert.Equal(t, [3]string{"0", "0", "0"}, counts())
	assert.Equal(t, otherBefore, qlState(t, f)[other], "other queues keep their messages")

	// Neither the in-flight nor the delayed message comes back.
	f.Advance(5 * time.Minute)
	assert.Equal(t, [3]string{"0", "0", "0"}, counts())
	assert.Empty(t, qlReceive(t, f, u, 10))
	// An old receipt handle names nothing now; deleting with it succeeds (SPEC.md §5.7).
	_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(u), ReceiptHandle: received[0].ReceiptHandle})
	require.NoError(t, err)
}

func TestPurgeQueueWithin60SecondsFailsWithPurgeQueueInProgress(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	// Messages sent after a purge are kept.
	qlSend(t, f, u, "after the purge", 0)

	for _, wait := range []time.Duration{0, 30 * time.Second, 29*time.Second + 999*time.Millisecond} {
		f.Advance(wait)
		before := qlState(t, f)
		_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
		qlRequireError(t, err, "PurgeQueue", qlPurgeQueueInProgress("jobs"))
		assert.Equal(t, before, qlState(t, f))
		assert.Equal(t, "1", before[u].Attributes["ApproximateNumberOfMessages"])
	}

	f.Advance(time.Millisecond) // 60 s after the first purge
	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	assert.Equal(t, "0", qlAttrs(t, f, u)["ApproximateNumberOfMessages"])
	// A failed purge does not restart the cooldown; a successful one does.
	f.Advance(59 * time.Second)
	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	qlRequireError(t, err, "PurgeQueue", qlPurgeQueueInProgress("jobs"))
}

func TestPurgeCooldownIsAKnob(t *testing.T) {
	ctx := context.Background()
	purge := func(f *Fake, u string) error {
		_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
		return err
	}

	// 0 switches it off: a suite that purges the same queue in every test's set-up runs.
	f := New(WithPurgeCooldown(0))
	u := qlCreate(t, f, "jobs", nil)
	for range 3 {
		qlSend(t, f, u, "left over", 0)
		require.NoError(t, purge(f, u))
		assert.Equal(t, "0", qlAttrs(t, f, u)["ApproximateNumberOfMessages"])
	}

	f = New(WithPurgeCooldown(10 * time.Second))
	u = qlCreate(t, f, "jobs", nil)
	require.NoError(t, purge(f, u))
	for _, wait := range []time.Duration{0, 9*time.Second + 999*time.Millisecond} {
		f.Advance(wait)
		qlRequireError(t, purge(f, u), "PurgeQueue", qlPurgeQueueInProgressEvery("jobs", "10 seconds"))
	}
	f.Advance(time.Millisecond) // 10 s after the first purge
	require.NoError(t, purge(f, u))

	// The message names the cooldown; Reset keeps the option.
	for _, tc := range []struct {
		cooldown time.Duration
		every    string
	}{{1500 * time.Millisecond, "1.5 seconds"}, {time.Second, "1 second"}, {90 * time.Second, "90 seconds"}} {
		f := New(WithPurgeCooldown(tc.cooldown))
		f.Reset()
		u := qlCreate(t, f, "jobs", nil)
		require.NoError(t, purge(f, u))
		qlRequireError(t, purge(f, u), "PurgeQueue", qlPurgeQueueInProgressEvery("jobs", tc.every))
	}
}

func TestPurgeQueueCooldownIsPerQueue(t *testing.T) {
	ctx := context.Background()
	f := New()
	a := qlCreate(t, f, "a", nil)
	b := qlCreateFIFO(t, f, "b.fifo", nil)
	_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(a)})
	require.NoError(t, err)
	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(b)})
	require.NoError(t, err)
	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(b)})
	qlRequireError(t, err, "PurgeQueue", qlPurgeQueueInProgress("b.fifo"))
}

func TestPurgeQueueCooldownHoldsOnAClockAtTheUnixEpoch(t *testing.T) {
	// A fresh benbjohnson mock stands at the Unix epoch, where the purge time is 0.
	ctx := context.Background()
	f := New(WithClock(clock.NewMock()))
	u := qlCreate(t, f, "jobs", nil)
	_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	qlRequireError(t, err, "PurgeQueue", qlPurgeQueueInProgress("jobs"))
	f.Advance(60 * time.Second)
	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
}

func TestPurgeQueueCooldownEndsWithTheQueue(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	f.Advance(60 * time.Second)
	qlCreate(t, f, "jobs", nil)
	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(u)})
	require.NoError(t, err, "a re-created queue has never been purged")
}

func TestPurgeQueueOfAnUnknownQueueFailsWithQueueDoesNotExist(t *testing.T) {
	f := New()
	_, err := f.PurgeQueue(context.Background(), &sqs.PurgeQueueInput{QueueUrl: aws.String(qlURL("missing"))})
	qlRequireError(t, err, "PurgeQueue", qlQueueDoesNotExist())
}

// ---- TagQueue, UntagQueue, ListQueueTags ----

func qlTag(t *testing.T, f *Fake, url string, tags map[string]string) {
	t.Helper()
	out, err := f.TagQueue(context.Background(), &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: tags})
	require.NoError(t, err)
	assert.Equal(t, &sqs.TagQueueOutput{}, out)
}

func qlUntag(t *testing.T, f *Fake, url string, keys ...string) {
	t.Helper()
	out, err := f.UntagQueue(context.Background(), &sqs.UntagQueueInput{QueueUrl: aws.String(url), TagKeys: keys})
	require.NoError(t, err)
	assert.Equal(t, &sqs.UntagQueueOutput{}, out)
}

func TestListQueueTagsOfAQueueWithoutTagsHasNilTags(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	out, err := f.ListQueueTags(context.Background(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	assert.Equal(t, &sqs.ListQueueTagsOutput{}, out)

	qlTag(t, f, u, map[string]string{"a": "1", "b": "2"})
	qlUntag(t, f, u, "a", "b")
	out, err = f.ListQueueTags(context.Background(), &sqs.ListQueueTagsInput{QueueUrl: aws.String(u)})
	require.NoError(t, err)
	assert.Equal(t, &sqs.ListQueueTagsOutput{}, out, "removing every tag leaves none, not an empty map")
}

func TestTagQueueMergesAndOverwritesCaseSensitiveKeys(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	steps := []struct {
		tags map[string]string
		want map[string]string
	}{
		{map[string]string{"team": "a", "env": "dev"}, map[string]string{"team": "a", "env": "dev"}},
		{map[string]string{"team": "b"}, map[string]string{"team": "b", "env": "dev"}},
		{map[string]string{"Team": "c", "TEAM": "d"}, map[string]string{"team": "b", "Team": "c", "TEAM": "d", "env": "dev"}},
		{map[string]string{"env": ""}, map[string]string{"team": "b", "Team": "c", "TEAM": "d", "env": ""}},
	}
	for i, s := range steps {
		qlTag(t, f, u, s.tags)
		assert.Equal(t, s.want, qlTags(t, f, u), "step %d", i)
	}
}

func TestUntagQueueRemovesTheListedKeysAndIgnoresUnknownOnes(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	qlTag(t, f, u, map[string]string{"team": "a", "Team": "b", "env": "dev"})
	qlUntag(t, f, u, "team", "missing", "ENV")
	assert.Equal(t, map[string]string{"Team": "b", "env": "dev"}, qlTags(t, f, u))
	qlUntag(t, f, u, "missing")
	assert.Equal(t, map[string]string{"Team": "b", "env": "dev"}, qlTags(t, f, u))
}

func TestTagQueueAcceptsTagsAtTheLimits(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	tags := map[string]string{
		strings.Repeat("k", 128):  strings.Repeat("v", 256),
		"ключ":                    "значение",
		"with space":              "a b",
		"sym_.:/=+-@":             "_.:/=+-@",
		strings.Repeat("é", 128):  strings.Repeat("ü", 256), // limits count characters, not bytes
		"prefix-aws:not-reserved": "v",
	}
	qlTag(t, f, u, tags)
	for i := len(tags); i < 50; i++ {
		qlTag(t, f, u, map[string]string{fmt.Sprintf("k%02d", i): "v"})
	}
	got := qlTags(t, f, u)
	assert.Len(t, got, 50)
	for k, v := range tags {
		assert.Equal(t, v, got[k])
	}
	// Overwriting at the limit is not adding.
	qlTag(t, f, u, map[string]string{"k10": "changed"})
	assert.Equal(t, "changed", qlTags(t, f, u)["k10"])
}

func TestTagQueueRejectsInvalidTags(t *testing.T) {
	// The texts are unverified against AWS (SPEC.md §5.16).
	const chars = "Tag keys and values can only contain Unicode letters, digits, white space, and these symbols: _ . : / = + - @"
	cases := []struct {
		desc     string
		existing int
		tags     map[string]string
		want     qlErr
	}{
		{"empty map", 0, map[string]string{}, qlMissingParameter("Tags")},
		{"empty key", 0, map[string]string{"": "v"}, qlInvalidParameterValue("Tag keys must be between 1 and 128 characters in length.")},
		{"key of 129 characters", 0, map[string]string{strings.Repeat("k", 129): "v"}, qlInvalidParameterValue("Tag keys must be between 1 and 128 characters in length.")},
		{"value of 257 characters", 0, map[string]string{"k": strings.Repeat("v", 257)}, qlInvalidParameterValue("Tag values must be less than 256 characters in length.")},
		{"reserved prefix", 0, map[string]string{"aws:team": "v"}, qlInvalidParameterValue("Tag keys must not start with the reserved prefix aws:.")},
		{"reserved prefix in another case", 0, map[string]string{"AWS:team": "v"}, qlInvalidParameterValue("Tag keys must not start with the reserved prefix aws:.")},
		{"forbidden character in a key", 0, map[string]string{"a#b": "v"}, qlInvalidParameterValue(chars)},
		{"forbidden character in a value", 0, map[string]string{"k": "a*b"}, qlInvalidParameterValue(chars)},
		{"one bad tag among good ones", 0, map[string]string{"good": "v", "bad!": "v"}, qlInvalidParameterValue(chars)},
		{"51 tags at once", 0, qlNTags(51), qlInvalidParameterValue("Too many tags added for queue jobs.")},
		{"more than 50 with the existing ones", 45, qlNTags(6), qlInvalidParameterValue("Too many tags added for queue jobs.")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlOtherQueue(t, f)
			u := qlCreate(t, f, "jobs", nil)
			for i := range tc.existing {
				qlTag(t, f, u, map[string]string{fmt.Sprintf("old%02d", i): "v"})
			}
			before := qlState(t, f)
			_, err := f.TagQueue(context.Background(), &sqs.TagQueueInput{QueueUrl: aws.String(u), Tags: tc.tags})
			qlRequireError(t, err, "TagQueue", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

// qlNTags returns n distinct tags.
func qlNTags(n int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m[fmt.Sprintf("new%02d", i)] = "v"
	}
	return m
}

func TestUntagQueueWithNoKeysFails(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	qlTag(t, f, u, map[string]string{"team": "a"})
	before := qlState(t, f)
	_, err := f.UntagQueue(context.Background(), &sqs.UntagQueueInput{QueueUrl: aws.String(u), TagKeys: []string{}})
	qlRequireError(t, err, "UntagQueue", qlInvalidParameterValue("Tag keys must be between 1 and 128 characters in length."))
	assert.Equal(t, before, qlState(t, f))
}

func TestListQueueTagsReturnsACopy(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "jobs", nil)
	in := map[string]string{"team": "a"}
	qlTag(t, f, u, in)
	in["team"] = "changed by caller"
	got := qlTags(t, f, u)
	got["team"] = "changed by reader"
	got["new"] = "x"
	assert.Equal(t, map[string]string{"team": "a"}, qlTags(t, f, u))
}

func TestTagOperationsOnAnUnknownQueueFailWithQueueDoesNotExist(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := aws.String(qlURL("missing"))
	_, err := f.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: u, Tags: map[string]string{"a": "b"}})
	qlRequireError(t, err, "TagQueue", qlQueueDoesNotExist())
	_, err = f.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: u, TagKeys: []string{"a"}})
	qlRequireError(t, err, "UntagQueue", qlQueueDoesNotExist())
	_, err = f.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: u})
	qlRequireError(t, err, "ListQueueTags", qlQueueDoesNotExist())
}

// ---- Queue operations settle the fake before they change it ----

// qlStartMoveTask starts a move task from the DLQ named dlq to the queue named dest at rate
// messages per second.
func qlStartMoveTask(t *testing.T, f *Fake, dlq, dest string, rate int32) {
	t.Helper()
	_, err := f.StartMessageMoveTask(context.Background(), &sqs.StartMessageMoveTaskInput{
		SourceArn: aws.String(qlARN(dlq)), DestinationArn: aws.String(qlARN(dest)), MaxNumberOfMessagesPerSecond: aws.Int32(rate),
	})
	require.NoError(t, err)
}

func qlLatestMoveTask(t *testing.T, f *Fake, dlq string) types.ListMessageMoveTasksResultEntry {
	t.Helper()
	out, err := f.ListMessageMoveTasks(context.Background(), &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(qlARN(dlq))})
	require.NoError(t, err)
	require.NotEmpty(t, out.Results)
	return out.Results[0]
}

func TestPurgeQueueLetsAMoveTaskFinishWhatWasDueBeforeThePurge(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	qlCreate(t, f, "src", map[string]string{"RedrivePolicy": qlRedrive("dlq", "1")})
	dest := qlCreate(t, f, "dest", nil)
	for i := range 5 {
		qlSend(t, f, dlq, fmt.Sprint(i), 0)
	}
	qlStartMoveTask(t, f, "dlq", "dest", 1)
	f.Advance(2 * time.Second) // two messages are due to have moved
	_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(dlq)})
	require.NoError(t, err)
	assert.Equal(t, "2", qlAttrs(t, f, dest)["ApproximateNumberOfMessages"])
	assert.Equal(t, "0", qlAttrs(t, f, dlq)["ApproximateNumberOfMessages"])
	assert.Equal(t, int64(2), qlLatestMoveTask(t, f, "dlq").ApproximateNumberOfMessagesMoved)
}

func TestDeleteQueueLetsAMoveTaskFinishWhatWasDueBeforeTheDelete(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	qlCreate(t, f, "src", map[string]string{"RedrivePolicy": qlRedrive("dlq", "1")})
	dest := qlCreate(t, f, "dest", nil)
	for i := range 5 {
		qlSend(t, f, dlq, fmt.Sprint(i), 0)
	}
	qlStartMoveTask(t, f, "dlq", "dest", 1)
	f.Advance(3 * time.Second)
	_, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(dest)})
	require.NoError(t, err)
	f.Advance(10 * time.Second)
	task := qlLatestMoveTask(t, f, "dlq")
	assert.Equal(t, "FAILED", aws.ToString(task.Status))
	assert.Equal(t, int64(3), task.ApproximateNumberOfMessagesMoved)
	assert.Equal(t, "2", qlAttrs(t, f, dlq)["ApproximateNumberOfMessages"])
}

func TestCreateQueueDoesNotReceiveMovesThatWereDueBeforeItExisted(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	qlCreate(t, f, "src", map[string]string{"RedrivePolicy": qlRedrive("dlq", "1")})
	dest := qlCreate(t, f, "dest", nil)
	for i := range 5 {
		qlSend(t, f, dlq, fmt.Sprint(i), 0)
	}
	qlStartMoveTask(t, f, "dlq", "dest", 1)
	_, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(dest)})
	require.NoError(t, err)
	f.Advance(60 * time.Second)
	// The first move fell due at 1 s, while the destination did not exist: the task failed
	// then, and the queue created now under the same name gets nothing.
	qlCreate(t, f, "dest", nil)
	f.Advance(10 * time.Second)
	assert.Equal(t, "0", qlAttrs(t, f, dest)["ApproximateNumberOfMessages"])
	task := qlLatestMoveTask(t, f, "dlq")
	assert.Equal(t, "FAILED", aws.ToString(task.Status))
	assert.Equal(t, int64(0), task.ApproximateNumberOfMessagesMoved)
	assert.Equal(t, "5", qlAttrs(t, f, dlq)["ApproximateNumberOfMessages"])
}
