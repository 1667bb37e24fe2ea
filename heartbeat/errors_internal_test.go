package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
)

// changeErr returns the error a ChangeMessageVisibility call gets from client when the fake
// answers it with the SQS error code.
func changeErr(t *testing.T, f *sqsfake.Fake, client Client, url, code string) error {
	t.Helper()
	remove := f.InjectFault(sqsfake.Fault{Operation: "ChangeMessageVisibility", Times: 1, Err: sqsfake.ServiceError(code, "injected")})
	defer remove()
	_, err := client.ChangeMessageVisibility(context.Background(), &sqs.ChangeMessageVisibilityInput{
		QueueUrl: &url, ReceiptHandle: aws.String("h"), VisibilityTimeout: 30})
	require.Error(t, err)
	return err
}

func TestRetryableClassifiesSQSErrorsAsTheyArrive(t *testing.T) {
	f := sqsfake.New()
	q, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	cases := map[string]bool{
		"RequestThrottled":       true,
		"InternalError":          true,
		"ServiceUnavailable":     true,
		"ReceiptHandleIsInvalid": false,
		"InvalidParameterValue":  false,
		"QueueDoesNotExist":      false,
		"AccessDenied":           false,
		"OverLimit":              false,
	}
	// Through the fake's methods and through a real *sqs.Client (the SDK's whole error path).
	clients := map[string]Client{"Fake": f, "sqs.Client": f.Client()}
	for name, client := range clients {
		for code, want := range cases {
			t.Run(name+"/"+code, func(t *testing.T) {
				assert.Equal(t, want, retryable(changeErr(t, f, client, *q.QueueUrl, code)))
			})
		}
	}
}

func TestRetryableOtherErrors(t *testing.T) {
	f := sqsfake.New()
	_, invalidParams := f.ChangeMessageVisibility(context.Background(), &sqs.ChangeMessageVisibilityInput{})
	require.Error(t, invalidParams)
	op := func(err error) error {
		return &smithy.OperationError{ServiceID: "SQS", OperationName: "ChangeMessageVisibility", Err: err}
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"client-side validation", invalidParams, false},
		{"call abandoned", fmt.Errorf("%w: %w", ErrCallTimeout, context.Canceled), false},
		{"request canceled", op(&smithy.CanceledError{Err: context.Canceled}), false},
		{"client timeout", op(context.DeadlineExceeded), true},
		{"unknown error from a user's client", errors.New("connection lost"), true},
		{"server fault", &smithy.GenericAPIError{Code: "Whatever", Fault: smithy.FaultServer}, true},
		{"client fault", &smithy.GenericAPIError{Code: "Whatever", Fault: smithy.FaultClient}, false},
		{"unknown fault", &smithy.GenericAPIError{Code: "Whatever"}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, retryable(c.err), c.name)
	}
}

func TestIsLimitErrorMatchesSQSsAnswer(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 7200})
	f.Advance(time.Hour)
	_, err := f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: q.QueueUrl, ReceiptHandle: out.Messages[0].ReceiptHandle, VisibilityTimeout: 43200 - 3600 + 1})
	require.Error(t, err)
	assert.True(t, isLimitError(err), err.Error())
	assert.False(t, retryable(err), "on its own it is a client fault; extend handles it before classifying")

	_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: q.QueueUrl, ReceiptHandle: aws.String("garbage"), VisibilityTimeout: 30})
	assert.False(t, isLimitError(err))
}

func TestPlan(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	end := t0.Add(MaxVisibility)
	d := &Delivery{timeout: 30 * time.Second}
	secs, final := d.plan(t0.Add(time.Hour), end)
	assert.Equal(t, [2]any{int32(30), false}, [2]any{secs, final})
	secs, final = d.plan(end.Add(-30*time.Second), end)
	assert.Equal(t, [2]any{int32(30), false}, [2]any{secs, final}, "ending exactly at the limit is allowed")
	secs, final = d.plan(end.Add(-29500*time.Millisecond), end)
	assert.Equal(t, [2]any{int32(29), true}, [2]any{secs, final}, "rounded down to whole seconds")
	secs, final = d.plan(end.Add(time.Second), end)
	assert.Equal(t, [2]any{int32(0), true}, [2]any{secs, final})
}
