package snsfake_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

func TestSNSCallsAreInTheQueueFakesCallRecord(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	f := s.SQS()
	before := f.CallCount()
	subscribe(t, s, topic, queue, nil)
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
	require.NoError(t, err)
	_, err = s.Client().Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic)}) // refused by the SDK
	require.Error(t, err)
	calls := f.Calls()[before:]
	var ops []string
	for _, c := range calls {
		ops = append(ops, c.Operation+" "+c.Caller.Door.String()+" "+c.Caller.PrincipalARN)
	}
	assert.Equal(t, []string{
		"SNS.Subscribe methods arn:aws:iam::123456789012:root",
		"SNS.Publish methods arn:aws:iam::123456789012:root",
		"SendMessage methods sns.amazonaws.com",
		"SNS.Publish client arn:aws:iam::123456789012:root",
	}, ops)
	assert.Equal(t, before+4, f.CallCount())
	assert.Error(t, calls[3].Err)

	// An SNS refusal is the test's last error.
	_, err = s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topic + "-nope")})
	require.Error(t, err)
	assert.Equal(t, err, f.LastError())
}

func TestFaultsInjectedOnSNSOperations(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	f := s.SQS()
	subscribe(t, s, topic, queue, nil)
	remove := f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", Err: snsfake.ServiceError("Throttled", "Rate exceeded"), Times: 1})
	defer remove()
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
	var throttled *types.ThrottledException
	require.True(t, errors.As(err, &throttled), "got %v", err)
	assert.Contains(t, err.Error(), "StatusCode: 429")
	assert.Empty(t, published(t, s, topic), "a call the fault failed does not run")
	_, err = s.Client().Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
	require.NoError(t, err, "Times: 1")
	assert.Len(t, receiveAll(t, f, "q"), 1)
	calls := f.Calls()
	var faulted int
	for _, c := range calls {
		if c.Fault {
			faulted++
		}
	}
	assert.Equal(t, 1, faulted)

	// A fault on SendMessage fails SNS's deliveries: they are lost.
	remove2 := f.InjectFault(sqsfake.Fault{Operation: "SendMessage", Err: sqsfake.ErrInternal})
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m2")})
	require.NoError(t, err)
	remove2()
	p := publication(t, s, *out.MessageId)
	assert.Equal(t, snsfake.Lost, p.Deliveries[0].Outcome)
	assert.Equal(t, "InternalError: We encountered an internal error. Please try again.", p.Deliveries[0].Reason)

	assert.Panics(t, func() {
		f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", FailEntries: func(string) bool { return true }})
	})
	assert.Panics(t, func() { f.InjectFault(sqsfake.Fault{Operation: "SNS.Nope", Err: sqsfake.ErrInternal}) })
}

func TestCallFiltersAndCallAssertionsNameSNSOperations(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	f := s.SQS()
	subscribe(t, s, topic, queue, nil)
	for _, m := range []string{"a", "b"} {
		_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(m)})
		require.NoError(t, err)
	}
	_, err := s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topic + "-nope")})
	require.Error(t, err)

	var ops []string
	for _, c := range f.Calls(sqsfake.CallFilter{Operation: "SNS.Publish"}, sqsfake.CallFilter{Operation: "SendMessage"}) {
		ops = append(ops, c.Operation)
	}
	assert.Equal(t, []string{"SNS.Publish", "SendMessage", "SNS.Publish", "SendMessage"}, ops)
	assert.Len(t, f.Calls(sqsfake.CallFilter{Operation: "SNS.Subscribe"}), 1)
	assert.True(t, sqsfake.AssertCallCount(t, f, sqsfake.CallFilter{Operation: "SNS.Publish"}, 2))
	var notFound *types.NotFoundException
	assert.True(t, sqsfake.AssertLastCallError(t, f, sqsfake.CallFilter{Operation: "SNS.GetTopicAttributes"}, &notFound))

	assert.PanicsWithValue(t, `sqsfake: Calls: CallFilter.Operation "SNS.publish" is not an operation; did you mean "SNS.Publish"?`,
		func() { f.Calls(sqsfake.CallFilter{Operation: "SNS.publish"}) })
	assert.PanicsWithValue(t, `sqsfake: InjectFault: "sns.publish" is not an operation; did you mean "SNS.Publish"?`,
		func() { f.InjectFault(sqsfake.Fault{Operation: "sns.publish", Err: sqsfake.ErrInternal}) })
	rec := &recordingT{}
	assert.False(t, sqsfake.AssertCallCount(rec, f, sqsfake.CallFilter{Operation: "SNS.Nope"}, 0))
	assert.Contains(t, rec.msg, `"SNS.Nope" is not an SQS operation`)
}

// recordingT is a TestingT that keeps the failure message.
type recordingT struct{ msg string }

func (r *recordingT) Errorf(format string, args ...any) { r.msg += fmt.Sprintf(format, args...) }
func (r *recordingT) Helper()                           {}
