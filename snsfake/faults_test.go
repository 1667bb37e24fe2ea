package snsfake_test

import (
	"context"
	"errors"
	"net/http/httptest"
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

// snsDoors publishes through each of the SNS fake's doors.
func snsDoors(t *testing.T) []struct {
	name    string
	publish func(s *snsfake.Fake, topic, msg string) (*sns.PublishOutput, error)
} {
	t.Helper()
	return []struct {
		name    string
		publish func(s *snsfake.Fake, topic, msg string) (*sns.PublishOutput, error)
	}{
		{"methods", func(s *snsfake.Fake, topic, msg string) (*sns.PublishOutput, error) {
			return s.Publish(context.Background(), &sns.PublishInput{TopicArn: &topic, Message: &msg})
		}},
		{"client", func(s *snsfake.Fake, topic, msg string) (*sns.PublishOutput, error) {
			return s.Client().Publish(context.Background(), &sns.PublishInput{TopicArn: &topic, Message: &msg})
		}},
		{"http", func(s *snsfake.Fake, topic, msg string) (*sns.PublishOutput, error) {
			srv := httptest.NewServer(s.Handler(s.SQS().Handler()))
			defer srv.Close()
			return wireClient(srv.URL).Publish(context.Background(), &sns.PublishInput{TopicArn: &topic, Message: &msg})
		}},
	}
}

func TestALostResponseOnPublishDeliversButTheCallerSeesAFailureThroughEveryDoor(t *testing.T) {
	for _, door := range snsDoors(t) {
		t.Run(door.name, func(t *testing.T) {
			s, topic, queue := setup(t, "t", nil, "q")
			f := s.SQS()
			subscribe(t, s, topic, queue, nil)
			f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", LoseResponse: true, Times: 1})
			out, err := door.publish(s, topic, "once")
			require.Error(t, err)
			assert.Nil(t, out)
			if door.name != "http" {
				assert.ErrorIs(t, err, sqsfake.ErrLostResponse)
				assert.ErrorIs(t, err, context.DeadlineExceeded, "it reads as the client's own timeout")
			}
			require.Len(t, published(t, s, topic), 1, "the publish took effect")
			assert.Len(t, receiveAll(t, f, "q"), 1, "and was delivered")
			calls := f.Calls(sqsfake.CallFilter{Operation: "SNS.Publish"})
			require.Len(t, calls, 1)
			assert.True(t, calls[0].Fault)
			assert.Error(t, calls[0].Err)

			_, err = door.publish(s, topic, "again")
			require.NoError(t, err, "Times: 1")
		})
	}
}

func TestALostResponseWithAnErrorAnswersThatError(t *testing.T) {
	s, topic, queue := setup(t, "t", nil, "q")
	subscribe(t, s, topic, queue, nil)
	s.SQS().InjectFault(sqsfake.Fault{Operation: "SNS.Publish", LoseResponse: true, Err: snsfake.ServiceError("InternalError", "boom")})
	_, err := s.Publish(context.Background(), &sns.PublishInput{TopicArn: &topic, Message: aws.String("m")})
	var internal *types.InternalErrorException
	require.True(t, errors.As(err, &internal), "got %v", err)
	assert.Len(t, published(t, s, topic), 1, "the publish took effect before its answer was lost")
}

func TestLatencyOnAnSNSOperationHoldsTheAnswerUntilTheClockMovesPastIt(t *testing.T) {
	s, topic, queue := setup(t, "t", nil, "q")
	f := s.SQS()
	subscribe(t, s, topic, queue, nil)
	start := f.Now()
	f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", Latency: 2 * time.Second, Times: 1})
	type result struct {
		out *sns.PublishOutput
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		out, err := s.Publish(context.Background(), &sns.PublishInput{TopicArn: &topic, Message: aws.String("slow")})
		done <- result{out, err, f.Now()}
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 1))
	assert.Len(t, published(t, s, topic), 1, "the publish took effect before its answer")
	assert.Len(t, receiveAll(t, f, "q"), 1)
	f.Advance(2*time.Second - time.Nanosecond)
	select {
	case <-done:
		t.Fatal("the answer arrived before its latency passed")
	default:
	}
	f.Advance(time.Nanosecond)
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, start.Add(2*time.Second), r.at)
	assert.Equal(t, published(t, s, topic)[0].MessageID, *r.out.MessageId)
	calls := f.Calls(sqsfake.CallFilter{Operation: "SNS.Publish"})
	require.Len(t, calls, 1)
	assert.True(t, calls[0].Waited)
	assert.Equal(t, start.Add(2*time.Second), calls[0].End)
}

func TestLatencyWithAnErrorFailsAnSNSCallLateWithoutRunningIt(t *testing.T) {
	s, topic, _ := setup(t, "t", nil, "q")
	f := s.SQS()
	f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", Latency: time.Second, Err: snsfake.ServiceError("Throttled", "Rate exceeded")})
	done := make(chan error, 1)
	go func() {
		_, err := s.Publish(context.Background(), &sns.PublishInput{TopicArn: &topic, Message: aws.String("m")})
		done <- err
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 1))
	f.Advance(time.Second)
	err := <-done
	var throttled *types.ThrottledException
	require.True(t, errors.As(err, &throttled), "got %v", err)
	assert.Empty(t, published(t, s, topic))
}

func TestAHeldSNSCallEndsWithItsContext(t *testing.T) {
	s, topic, _ := setup(t, "t", nil, "q")
	f := s.SQS()
	f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", Latency: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: &topic, Message: aws.String("m")})
		done <- err
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 1))
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}

func TestFailEntriesFailsOnlyThePickedPublishBatchEntries(t *testing.T) {
	for _, tc := range []struct {
		name        string
		err         error
		code, msg   string
		senderFault bool
	}{
		{"no error: SNS's internal error", nil, "InternalError", "Internal Error", false},
		{"an SNS error", snsfake.ServiceError("Throttled", "Rate exceeded"), "Throttled", "Rate exceeded", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, topic, queue := setup(t, "t", nil, "q")
			f := s.SQS()
			subscribe(t, s, topic, queue, nil)
			f.InjectFault(sqsfake.Fault{Operation: "SNS.PublishBatch", Err: tc.err, FailEntries: func(id string) bool { return id == "b" }})
			out, err := s.PublishBatch(context.Background(), &sns.PublishBatchInput{TopicArn: &topic, PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
				{Id: aws.String("a"), Message: aws.String("A")}, {Id: aws.String("b"), Message: aws.String("B")}, {Id: aws.String("c"), Message: aws.String("C")}}})
			require.NoError(t, err)
			assert.Equal(t, []types.BatchResultErrorEntry{{Id: aws.String("b"), Code: aws.String(tc.code), Message: aws.String(tc.msg), SenderFault: tc.senderFault}}, out.Failed)
			require.Len(t, out.Successful, 2)
			assert.Equal(t, []string{"a", "c"}, []string{*out.Successful[0].Id, *out.Successful[1].Id})
			var messages []string
			for _, p := range published(t, s, topic) {
				messages = append(messages, p.Message)
			}
			assert.Equal(t, []string{"A", "C"}, messages, "a failed entry is not published")
			assert.Len(t, receiveAll(t, f, "q"), 2)

			// A batch in which FailEntries picks nothing is left alone.
			out, err = s.PublishBatch(context.Background(), &sns.PublishBatchInput{TopicArn: &topic, PublishBatchRequestEntries: []types.PublishBatchRequestEntry{
				{Id: aws.String("x"), Message: aws.String("X")}}})
			require.NoError(t, err)
			assert.Empty(t, out.Failed)
			calls := f.Calls(sqsfake.CallFilter{Operation: "SNS.PublishBatch"})
			require.Len(t, calls, 2)
			assert.Equal(t, []bool{true, false}, []bool{calls[0].Fault, calls[1].Fault})
		})
	}
}
