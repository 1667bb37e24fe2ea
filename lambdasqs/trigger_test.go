package lambdasqs_test

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

func queue(t testing.TB, f *sqsfake.Fake, name string, attrs map[string]string) string {
	t.Helper()
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	require.NoError(t, err)
	return *out.QueueUrl
}

func ok(context.Context, events.SQSEvent) error { return nil }

func TestNewRefusesWhatCreateEventSourceMappingRefuses(t *testing.T) {
	f := sqsfake.New()
	queue(t, f, "std", map[string]string{"VisibilityTimeout": "60"})
	queue(t, f, "q.fifo", map[string]string{"FifoQueue": "true", "VisibilityTimeout": "60"})
	for _, tc := range []struct {
		name, queue string
		cfg         lambdasqs.Config
		code, msg   string
	}{
		{"batch size 0 is the default", "std", lambdasqs.Config{}, "", ""},
		{"batch size negative", "std", lambdasqs.Config{BatchSize: -1}, "ValidationException", "1 validation error detected: Value '-1' at 'batchSize' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"batch size over 10,000", "std", lambdasqs.Config{BatchSize: 10001, MaximumBatchingWindowInSeconds: 1}, "ValidationException", "1 validation error detected: Value '10001' at 'batchSize' failed to satisfy constraint: Member must have value less than or equal to 10000"},
		{"batch size 11 without a window", "std", lambdasqs.Config{BatchSize: 11}, "InvalidParameterValueException", "Maximum batch window in seconds must be greater than 0 if maximum batch size is greater than 10"},
		{"batch size 10,000 with a window", "std", lambdasqs.Config{BatchSize: 10000, MaximumBatchingWindowInSeconds: 300}, "", ""},
		{"window over 300", "std", lambdasqs.Config{MaximumBatchingWindowInSeconds: 301}, "ValidationException", "1 validation error detected: Value '301' at 'maximumBatchingWindowInSeconds' failed to satisfy constraint: Member must have value less than or equal to 300"},
		{"FIFO batch size 11", "q.fifo", lambdasqs.Config{BatchSize: 11}, "InvalidParameterValueException", "Maximum batch size must be between 1 and 10 inclusive"},
		{"FIFO window", "q.fifo", lambdasqs.Config{MaximumBatchingWindowInSeconds: 1}, "InvalidParameterValueException", "Batching window is not supported for FIFO queues"},
		{"unknown response type", "std", lambdasqs.Config{FunctionResponseTypes: []string{"Partial"}}, "ValidationException", "1 validation error detected: Value '[Partial]' at 'functionResponseTypes' failed to satisfy constraint: Member must satisfy enum value set: [ReportBatchItemFailures]"},
		{"concurrency 1", "std", lambdasqs.Config{MaximumConcurrency: 1}, "ValidationException", "1 validation error detected: Value '1' at 'scalingConfig.maximumConcurrency' failed to satisfy constraint: Member must have value greater than or equal to 2"},
		{"concurrency 1001", "std", lambdasqs.Config{MaximumConcurrency: 1001}, "ValidationException", "1 validation error detected: Value '1001' at 'scalingConfig.maximumConcurrency' failed to satisfy constraint: Member must have value less than or equal to 1000"},
		{"concurrency 2", "std", lambdasqs.Config{MaximumConcurrency: 2}, "", ""},
		{"provisioned mode with its defaults", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{}}, "", ""},
		{"provisioned mode at SQS's bounds", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: 2, MaximumPollers: 10000}}, "", ""},
		{"provisioned mode on a FIFO queue", "q.fifo", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: 200, MaximumPollers: 200}}, "", ""},
		{"minimum pollers negative", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: -1}}, "ValidationException", "1 validation error detected: Value '-1' at 'provisionedPollerConfig.minimumPollers' failed to satisfy constraint: Member must have value greater than or equal to 1"},
		{"minimum pollers over 200", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: 201}}, "ValidationException", "1 validation error detected: Value '201' at 'provisionedPollerConfig.minimumPollers' failed to satisfy constraint: Member must have value less than or equal to 200"},
		{"maximum pollers over 10,000", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MaximumPollers: 10001}}, "ValidationException", "1 validation error detected: Value '10001' at 'provisionedPollerConfig.maximumPollers' failed to satisfy constraint: Member must have value less than or equal to 10000"},
		{"one minimum poller is Kafka's, not SQS's", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: 1}}, "InvalidParameterValueException", "MinimumPollers must be at least 2 for an Amazon SQS event source mapping, but was 1"},
		{"one maximum poller", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MaximumPollers: 1}}, "InvalidParameterValueException", "MaximumPollers must be at least 2 for an Amazon SQS event source mapping, but was 1"},
		{"minimum above maximum", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: 10, MaximumPollers: 5}}, "InvalidParameterValueException", "MinimumPollers (10) must not be greater than MaximumPollers (5)"},
		{"minimum above the default maximum", "std", lambdasqs.Config{ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: 200, MaximumPollers: 0}}, "", ""},
		{"provisioned mode and a maximum concurrency", "std", lambdasqs.Config{MaximumConcurrency: 10, ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{}}, "InvalidParameterValueException", "ProvisionedPollerConfig and ScalingConfig.MaximumConcurrency cannot be used together: choose provisioned mode or a maximum concurrency"},
		{"function timeout equal to the visibility timeout", "std", lambdasqs.Config{FunctionTimeout: 60 * time.Second}, "", ""},
		{"function timeout over the visibility timeout", "std", lambdasqs.Config{FunctionTimeout: 120 * time.Second}, "InvalidParameterValueException", "Queue visibility timeout: 60 seconds is less than Function timeout: 120 seconds"},
		{"function timeout not whole seconds", "std", lambdasqs.Config{FunctionTimeout: 1500 * time.Millisecond}, "ValidationException", "1 validation error detected: Value '1.5' at 'timeout' failed to satisfy constraint: Member must be a whole number of seconds from 1 to 900"},
		{"function timeout over 900 s", "std", lambdasqs.Config{FunctionTimeout: 901 * time.Second}, "ValidationException", "1 validation error detected: Value '901' at 'timeout' failed to satisfy constraint: Member must be a whole number of seconds from 1 to 900"},
		{"function timeout a bare number", "std", lambdasqs.Config{FunctionTimeout: 3}, "ValidationException", "FunctionTimeout is a time.Duration: 3 means 3ns; did you mean 3*time.Second?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trig, err := lambdasqs.New(f, tc.queue, ok, tc.cfg)
			if tc.code == "" {
				require.NoError(t, err)
				trig.Close() // frees the queue and function for the next mapping
				return
			}
			var le *lambdasqs.Error
			require.True(t, errors.As(err, &le), "%v", err)
			assert.Equal(t, &lambdasqs.Error{Code: tc.code, Message: tc.msg}, le)
		})
	}
}

func TestRecordsHaveLambdasFields(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithSenderID("AIDASQSFAKEEXAMPLE001"))
	url := queue(t, f, "orders.fifo", map[string]string{"FifoQueue": "true"})
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: &url, MessageBody: aws.String(`{"id":1}`), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d1"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"kind": {DataType: aws.String("String"), StringValue: aws.String("order")},
			"blob": {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2}},
		},
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
			"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")},
		},
	})
	require.NoError(t, err)
	f.Advance(2 * time.Second)
	var got events.SQSEvent
	var lc *lambdacontext.LambdaContext
	var deadline time.Time
	trig, err := lambdasqs.New(f, url, func(ctx context.Context, ev events.SQSEvent) error {
		got = ev
		lc, _ = lambdacontext.FromContext(ctx)
		deadline, _ = ctx.Deadline()
		return nil
	}, lambdasqs.Config{FunctionName: "orders"})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	require.Len(t, got.Records, 1)
	info, _ := f.Queue(url)
	r := got.Records[0]
	sent := sqsfake.DefaultStart.UnixMilli()
	want := events.SQSMessage{
		MessageId: r.MessageId, ReceiptHandle: r.ReceiptHandle, Body: `{"id":1}`,
		Md5OfBody: fmt.Sprintf("%x", md5.Sum([]byte(`{"id":1}`))), Md5OfMessageAttributes: r.Md5OfMessageAttributes,
		Attributes: map[string]string{
			"ApproximateReceiveCount":          "1",
			"SentTimestamp":                    fmt.Sprint(sent),
			"SenderId":                         "AIDASQSFAKEEXAMPLE001",
			"ApproximateFirstReceiveTimestamp": fmt.Sprint(sent + 2000),
			"SequenceNumber":                   r.Attributes["SequenceNumber"],
			"MessageGroupId":                   "g",
			"MessageDeduplicationId":           "d1",
			"AWSTraceHeader":                   "Root=1-5759e988-bd862e3fe1be46a994272793",
		},
		MessageAttributes: map[string]events.SQSMessageAttribute{
			"kind": {DataType: "String", StringValue: aws.String("order"), StringListValues: []string{}, BinaryListValues: [][]byte{}},
			"blob": {DataType: "Binary", BinaryValue: []byte{1, 2}, StringListValues: []string{}, BinaryListValues: [][]byte{}},
		},
		EventSourceARN: info.Arn, EventSource: "aws:sqs", AWSRegion: sqsfake.DefaultRegion,
	}
	assert.Equal(t, want, r)
	assert.NotEmpty(t, r.Md5OfMessageAttributes)
	assert.NotEmpty(t, r.Attributes["SequenceNumber"])
	assert.Equal(t, &lambdacontext.LambdaContext{AwsRequestID: "00000000-0000-4000-8000-000000000001", InvokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:orders"}, lc)
	assert.Equal(t, f.Now().Add(lambdasqs.DefaultFunctionTimeout), deadline)
}

// response is a handler returning a fixed answer, whatever the batch.
func response(ids func(ev events.SQSEvent) []string, err error, panics bool) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		if panics {
			panic("boom")
		}
		var resp events.SQSEventResponse
		for _, id := range ids(ev) {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
		return resp, err
	}
}

func TestOutcomesAsLambdaAppliesThem(t *testing.T) {
	none := func(events.SQSEvent) []string { return nil }
	second := func(ev events.SQSEvent) []string { return []string{ev.Records[1].MessageId} }
	for _, tc := range []struct {
		name    string
		report  bool
		h       func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)
		outcome lambdasqs.Outcome
		deleted int
	}{
		{"success deletes the batch", false, response(none, nil, false), lambdasqs.Success, 3},
		{"an error deletes nothing", false, response(none, errors.New("x"), false), lambdasqs.FunctionError, 0},
		{"a panic deletes nothing", true, response(none, nil, true), lambdasqs.Panic, 0},
		{"a list without ReportBatchItemFailures is ignored", false, response(second, nil, false), lambdasqs.Success, 3},
		{"only the listed message stays", true, response(second, nil, false), lambdasqs.PartialFailure, 2},
		{"an empty list is success", true, response(none, nil, false), lambdasqs.Success, 3},
		{"an error with a list fails the batch", true, response(second, errors.New("x"), false), lambdasqs.FunctionError, 0},
		{"an empty itemIdentifier fails the batch", true, response(func(events.SQSEvent) []string { return []string{""} }, nil, false), lambdasqs.InvalidResponse, 0},
		{"an unknown itemIdentifier fails the batch", true, response(func(events.SQSEvent) []string { return []string{"nope"} }, nil, false), lambdasqs.InvalidResponse, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := sqsfake.New()
			url := queue(t, f, "q", nil)
			for _, b := range []string{"a", "b", "c"} {
				_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(b)})
				require.NoError(t, err)
			}
			var cfg lambdasqs.Config
			if tc.report {
				cfg.FunctionResponseTypes = []string{lambdasqs.ReportBatchItemFailures}
			}
			trig, err := lambdasqs.New(f, "q", tc.h, cfg)
			require.NoError(t, err)
			require.NoError(t, trig.Poll(ctx))
			trig.AssertOutcomes(t, []lambdasqs.Outcome{tc.outcome})
			inv := trig.Invocations()[0]
			assert.Len(t, inv.Deleted, tc.deleted)
			info, _ := f.Queue("q")
			assert.Equal(t, 3-tc.deleted, info.InFlight, "kept messages stay in flight until their visibility timeout")
			// The kept messages come back after the 30-second default visibility timeout.
			require.NoError(t, trig.Advance(ctx, 30*time.Second))
			if tc.deleted < 3 {
				require.Len(t, trig.Invocations(), 2)
				assert.Equal(t, inv.Kept, trig.Invocations()[1].MessageIDs)
			}
		})
	}
}

func TestBatchingWindowGathersUpToBatchSize(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	url := queue(t, f, "q", map[string]string{"VisibilityTimeout": "60"})
	send := func(n int) {
		for range n {
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
			require.NoError(t, err)
		}
	}
	send(25)
	trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{BatchSize: 40, MaximumBatchingWindowInSeconds: 5})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	assert.Empty(t, trig.Invocations(), "the window is open and the batch is not full")
	f.Advance(2 * time.Second)
	send(20)
	require.NoError(t, trig.Advance(ctx, 10*time.Second))
	invs := trig.Invocations()
	require.Len(t, invs, 2)
	assert.Equal(t, []int{40, 5}, []int{len(invs[0].MessageIDs), len(invs[1].MessageIDs)})
	assert.Equal(t, []time.Duration{2 * time.Second, 7 * time.Second}, []time.Duration{invs[0].At.Sub(sqsfake.DefaultStart), invs[1].At.Sub(sqsfake.DefaultStart)})
}

func TestDisabledMappingDoesNotPoll(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	url := queue(t, f, "q", nil)
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
	require.NoError(t, err)
	trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{Disabled: true})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Minute))
	assert.Empty(t, trig.Invocations())
	trig.SetEnabled(true)
	require.NoError(t, trig.Poll(ctx))
	trig.AssertOutcomes(t, []lambdasqs.Outcome{lambdasqs.Success})
}

type recorder struct{ msgs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func TestAssertionsReportTheInvocations(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	url := queue(t, f, "q", nil)
	out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
	require.NoError(t, err)
	trig, err := lambdasqs.New(f, "q", func(context.Context, events.SQSEvent) error { return errors.New("nope") }, lambdasqs.Config{})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, 30*time.Second))
	assert.True(t, trig.AssertInvoked(t, *out.MessageId, 2))
	var r recorder
	assert.False(t, trig.AssertInvoked(&r, *out.MessageId, 1))
	assert.False(t, trig.AssertOutcomes(&r, []lambdasqs.Outcome{lambdasqs.Success}))
	require.Len(t, r.msgs, 2)
	assert.True(t, strings.HasPrefix(r.msgs[0], "lambdasqs: message "+*out.MessageId+" was in 2 invocations, want 1\ninvocations:\n  00:00:00.000 00000000-0000-4000-8000-000000000001: FunctionError of ["), r.msgs[0])
	assert.Contains(t, r.msgs[1], "lambdasqs: outcomes [FunctionError FunctionError], want [Success]")
}

// The handler's records are its own, as its copy of the event is on Lambda: a handler that
// reorders or edits them changes nothing about which messages are deleted or held back.
func TestAHandlerThatReordersItsRecordsReportsTheRightMessage(t *testing.T) {
	for _, fifo := range []bool{false, true} {
		t.Run(fmt.Sprintf("fifo %v", fifo), func(t *testing.T) {
			ctx := context.Background()
			f := sqsfake.New()
			name, attrs := "q", map[string]string(nil)
			if fifo {
				name, attrs = "q.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}
			}
			url := queue(t, f, name, attrs)
			ids := map[string]string{}
			for _, b := range []string{"a", "b", "c"} {
				in := &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(b)}
				if fifo {
					in.MessageGroupId = aws.String("g-" + b) // a group each: nothing else is held back
				}
				out, err := f.SendMessage(ctx, in)
				require.NoError(t, err)
				ids[b] = *out.MessageId
			}
			h := func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
				slices.Reverse(ev.Records)
				for i := range ev.Records {
					ev.Records[i].Attributes["MessageGroupId"] = "same"
				}
				return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ids["a"]}}}, nil
			}
			trig, err := lambdasqs.New(f, name, h, lambdasqs.Config{FunctionResponseTypes: []string{lambdasqs.ReportBatchItemFailures}})
			require.NoError(t, err)
			require.NoError(t, trig.Poll(ctx))
			inv := trig.Invocations()[0]
			assert.Equal(t, []string{ids["a"]}, inv.Kept)
			assert.Equal(t, []string{ids["b"], ids["c"]}, inv.Deleted)
		})
	}
}

func TestABatchStopsShortOfTheSixMegabytePayload(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	url := queue(t, f, "q", nil)
	body := strings.Repeat("x", 700_000)
	for range 10 {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: &body})
		require.NoError(t, err)
	}
	trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	var sizes []int
	for _, inv := range trig.Invocations() {
		sizes = append(sizes, len(inv.MessageIDs))
	}
	// Eight records of 700,000 bytes fit in 6 MB (6,291,456 bytes); a ninth would not.
	assert.Equal(t, []int{8, 2}, sizes)
}

func TestATriggerOnAQueueOfAnotherRegionAndAccountPollsThatQueue(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	home := queue(t, f, "jobs", nil)
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &home, MessageBody: aws.String("home")})
	require.NoError(t, err)
	away := sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222", Region: "eu-west-1"})
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")}, away)
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("away")}, away)
	require.NoError(t, err)

	var got []events.SQSMessage
	trig, err := lambdasqs.New(f, "arn:aws:sqs:eu-west-1:222222222222:jobs", func(_ context.Context, ev events.SQSEvent) error {
		got = append(got, ev.Records...)
		return nil
	}, lambdasqs.Config{})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Second))
	require.Len(t, got, 1)
	assert.Equal(t, []string{"away", "eu-west-1", "arn:aws:sqs:eu-west-1:222222222222:jobs"},
		[]string{got[0].Body, got[0].AWSRegion, got[0].EventSourceARN})
	homeInfo, _ := f.Queue("jobs")
	assert.Len(t, homeInfo.Messages, 1, "the home region's queue of the same name is left alone")
	awayInfo, _ := f.Queue("arn:aws:sqs:eu-west-1:222222222222:jobs")
	assert.Empty(t, awayInfo.Messages, "the handled message was deleted")
}
