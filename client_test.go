package sqsfake

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClientIsConfiguredToStayInMemory(t *testing.T) {
	f := New(WithRegion("eu-west-1"))
	o := f.Client().Options()
	assert.Equal(t, "eu-west-1", o.Region)
	assert.Equal(t, "http://sqs.fake.invalid", aws.ToString(o.BaseEndpoint))
	assert.Equal(t, 1, o.RetryMaxAttempts)
	assert.Nil(t, o.Credentials, "anonymous: the SDK signs nothing and looks nothing up")
	assert.IsType(t, escapeGuard{}, o.HTTPClient)

	o = f.Client(func(o *sqs.Options) { o.RetryMaxAttempts = 3 }).Options()
	assert.Equal(t, 3, o.RetryMaxAttempts, "optFns apply over the defaults")
}

func TestClientErrorsAreIdenticalToTheMethods(t *testing.T) {
	ctx := context.Background()
	// Two fresh fakes number their calls alike, so even the request ids match.
	f1, f2 := New(), New()
	_, err1 := f1.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	_, err2 := f2.Client().GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	require.Error(t, err1)
	require.Error(t, err2)
	assert.Equal(t, err1.Error(), err2.Error())

	var qdne *types.QueueDoesNotExist
	require.ErrorAs(t, err2, &qdne)
	assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", qdne.ErrorCode())
	var oe *smithy.OperationError
	require.ErrorAs(t, err2, &oe)
	assert.Equal(t, "GetQueueUrl", oe.Operation())
	assert.NotErrorAs(t, oe.Err, &oe, "the SDK wraps the operation error once")
}

func TestClientRunsTheSDKsValidationAndChecksums(t *testing.T) {
	ctx := context.Background()
	f := New()
	c := f.Client()
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)

	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl})
	var ipe smithy.InvalidParamsError
	require.ErrorAs(t, err, &ipe)
	assert.Equal(t, "operation error SQS: SendMessage, 1 validation error(s) found.\n- missing required field, SendMessageInput.MessageBody.\n", err.Error())

	// A body that is not valid UTF-8 reaches SQS with U+FFFD in place of the bad byte, so the
	// SDK's MD5 check fails, after the message was enqueued.
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("\xff")})
	require.ErrorContains(t, err, "message checksum validation failed")
	// Options given at construction or per call turn the check off, as with AWS.
	_, err = f.Client(func(o *sqs.Options) { o.DisableMessageChecksumValidation = true }).
		SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("\xff")})
	require.NoError(t, err)
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("\xff")},
		func(o *sqs.Options) { o.DisableMessageChecksumValidation = true })
	require.NoError(t, err)

	attrs, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages"}})
	require.NoError(t, err)
	assert.Equal(t, "3", attrs.Attributes["ApproximateNumberOfMessages"])
}

func TestClientReportsRequestIDs(t *testing.T) {
	ctx := context.Background()
	f := New()
	out, err := f.Client().CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	require.True(t, ok)
	assert.Equal(t, uuidFor(f.seed, streamRequestID, 1), id, "the id an error of call 1 would carry")
}

func TestClientCannotEscapeToTheNetwork(t *testing.T) {
	ctx := context.Background()
	reached := false
	theirs := clientFunc(func(*http.Request) (*http.Response, error) {
		reached = true
		return nil, errors.New("reached their HTTP client")
	})
	for name, c := range map[string]*sqs.Client{
		"plain": New().Client(),
		"with the caller's HTTP client": New().Client(func(o *sqs.Options) {
			o.HTTPClient = theirs
			o.BaseEndpoint = aws.String("http://127.0.0.1:1")
		}),
	} {
		t.Run(name, func(t *testing.T) {
			// A per-call option that replaces the middleware list removes the fake's
			// middleware; the request still never leaves.
			_, err := c.ListQueues(ctx, nil, func(o *sqs.Options) { o.APIOptions = nil })
			require.ErrorIs(t, err, ErrEscaped)
			assert.Contains(t, err.Error(), "sqsfake: request escaped the fake")
			assert.False(t, reached)
		})
	}
}

// clientFunc is an sqs.HTTPClient made of a function.
type clientFunc func(*http.Request) (*http.Response, error)

func (f clientFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

func TestClientKeepsCallersMiddlewares(t *testing.T) {
	ctx := context.Background()
	f := New()
	var seen []string
	record := func(id string) func(*middleware.Stack) error {
		return func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(id,
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					seen = append(seen, id+" "+middleware.GetOperationName(ctx))
					return next.HandleInitialize(ctx, in)
				}), middleware.Before)
		}
	}
	// Replacing APIOptions at construction keeps the fake's middleware.
	c := f.Client(func(o *sqs.Options) { o.APIOptions = []func(*middleware.Stack) error{record("built")} })
	_, err := c.ListQueues(ctx, nil)
	require.NoError(t, err)
	_, err = c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q")},
		func(o *sqs.Options) { o.APIOptions = append(o.APIOptions, record("per-call")) })
	require.ErrorContains(t, err, "NonExistentQueue")
	assert.Equal(t, []string{"built ListQueues", "per-call GetQueueUrl", "built GetQueueUrl"}, seen)
}

func TestClientLongPollHonoursTheContext(t *testing.T) {
	f := New()
	c := f.Client()
	q, err := c.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		done <- err
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 1))
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	var ce *smithy.CanceledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "operation error SQS: ReceiveMessage, https response error StatusCode: 0, RequestID: , canceled, context canceled", err.Error())
	assert.Zero(t, f.Pollers())
}

func TestClientLongPollOnTheMockClock(t *testing.T) {
	f := New()
	c := f.Client()
	q, err := c.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	start := f.Now()

	done := make(chan *sqs.ReceiveMessageOutput, 1)
	go func() {
		out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		assert.NoError(t, err)
		done <- out
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 1))
	f.Advance(19 * time.Second)
	select {
	case <-done:
		t.Fatal("the poll ended before its wait time")
	default:
	}
	_, err = c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")})
	require.NoError(t, err)
	out := <-done
	require.Len(t, out.Messages, 1)
	assert.Equal(t, 19*time.Second, f.Now().Sub(start))
}

func TestClientWorksInsideSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		f := New(WithClock(RealClock{}))
		for _, c := range []*sqs.Client{f.Client(), memoryClientOf(f)} {
			q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
			require.NoError(t, err)
			start := time.Now()
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
			require.NoError(t, err)
			assert.Empty(t, out.Messages)
			assert.Equal(t, 20*time.Second, time.Since(start), "the poll waits exactly its wait time, in bubble time")

			go func() {
				time.Sleep(5 * time.Second)
				c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")})
			}()
			start = time.Now()
			out, err = c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
			require.NoError(t, err)
			require.Len(t, out.Messages, 1)
			assert.Equal(t, 5*time.Second, time.Since(start))

			short, cancel := context.WithTimeout(ctx, 3*time.Second)
			_, err = c.ReceiveMessage(short, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
			cancel()
			require.ErrorIs(t, err, context.DeadlineExceeded)
			var ce *smithy.CanceledError
			require.ErrorAs(t, err, &ce)

			_, err = c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
			require.NoError(t, err)
			time.Sleep(time.Minute) // the name's cooldown
		}
	})
}

func TestClientSatisfiesThePaginators(t *testing.T) {
	ctx := context.Background()
	f := New()
	c := f.Client()
	for _, name := range []string{"a", "b", "c"} {
		_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		require.NoError(t, err)
	}
	var urls []string
	p := sqs.NewListQueuesPaginator(c, &sqs.ListQueuesInput{MaxResults: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		urls = append(urls, out.QueueUrls...)
	}
	assert.Len(t, urls, 3)
}

func TestClientErrorOfAnUnknownOperation(t *testing.T) {
	m := &doorMiddleware{f: New()}
	ctx := middleware.WithOperationName(context.Background(), "Frobnicate")
	_, _, err := m.HandleSerialize(ctx, middleware.SerializeInput{}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Frobnicate")
}

// BenchmarkClientSendMessage measures a SendMessage through Client (bar: 15 µs).
func BenchmarkClientSendMessage(b *testing.B) {
	ctx := context.Background()
	f := New()
	c := f.Client()
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bench")})
	if err != nil {
		b.Fatal(err)
	}
	in := &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body100)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.SendMessage(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
