package sqsfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fake satisfies the interfaces the SDK exports for its paginators.
var (
	_ sqs.ListQueuesAPIClient                 = (*Fake)(nil)
	_ sqs.ListDeadLetterSourceQueuesAPIClient = (*Fake)(nil)
)

func methodSet(t reflect.Type) map[string]string {
	m := make(map[string]string, t.NumMethod())
	for i := 0; i < t.NumMethod(); i++ {
		meth := t.Method(i)
		// The method's type without its receiver.
		in := make([]reflect.Type, 0, meth.Type.NumIn()-1)
		for j := 1; j < meth.Type.NumIn(); j++ {
			in = append(in, meth.Type.In(j))
		}
		out := make([]reflect.Type, meth.Type.NumOut())
		for j := range out {
			out[j] = meth.Type.Out(j)
		}
		m[meth.Name] = reflect.FuncOf(in, out, meth.Type.IsVariadic()).String()
	}
	return m
}

func TestFakeHasEveryMethodOfTheSDKClient(t *testing.T) {
	client := methodSet(reflect.TypeOf((*sqs.Client)(nil)))
	fake := methodSet(reflect.TypeOf((*Fake)(nil)))
	require.Len(t, client, 24, "sqs.Client v1.53.0 has 23 operations and Options")
	for name, sig := range client {
		assert.Equal(t, sig, fake[name], "method %s", name)
	}
}

func TestNilInputBehavesAsTheSDKs(t *testing.T) {
	ctx := context.Background()
	f := New()
	out, err := f.ListQueues(ctx, nil)
	require.NoError(t, err)
	assert.Nil(t, out.QueueUrls)

	_, err = f.SendMessage(ctx, nil)
	var invalid smithy.InvalidParamsError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "operation error SQS: SendMessage, 2 validation error(s) found.\n"+
		"- missing required field, SendMessageInput.QueueUrl.\n"+
		"- missing required field, SendMessageInput.MessageBody.\n", err.Error())
}

func TestCancelledContextFailsBeforeTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := New()
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "operation error SQS: CreateQueue, context canceled", err.Error())
	out, err := f.ListQueues(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, out.QueueUrls, "a cancelled call changes nothing")
}

func TestOptFnsApplyToACopyOfTheOptions(t *testing.T) {
	ctx := context.Background()
	f := New()
	before := f.Options()
	_, err := f.ListQueues(ctx, nil, func(o *sqs.Options) {
		o.Region = "eu-west-1"
		o.DisableMessageChecksumValidation = true
	})
	require.NoError(t, err)
	after := f.Options()
	assert.Equal(t, before.Region, after.Region)
	assert.False(t, after.DisableMessageChecksumValidation)
	assert.Equal(t, DefaultRegion, after.Region)
}

func TestListQueuesPaginatorPagesThroughTheFake(t *testing.T) {
	ctx := context.Background()
	f := New()
	var want []string
	for i := range 23 {
		name := fmt.Sprintf("q%02d", i)
		out, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		require.NoError(t, err)
		want = append(want, *out.QueueUrl)
	}
	sort.Strings(want)
	p := sqs.NewListQueuesPaginator(f, &sqs.ListQueuesInput{}, func(o *sqs.ListQueuesPaginatorOptions) { o.Limit = 10 })
	var got []string
	pages := 0
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		require.NoError(t, err)
		got = append(got, page.QueueUrls...)
		pages++
	}
	assert.Equal(t, want, got)
	assert.Equal(t, 3, pages)
}

// scenario runs a fixed script of calls and clock moves and records every output and error.
func scenario(t *testing.T, f *Fake) []string {
	t.Helper()
	ctx := context.Background()
	var log []string
	rec := func(v any, err error) {
		if err != nil {
			log = append(log, "error: "+err.Error())
			return
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		log = append(log, string(b))
	}
	dlq, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	require.NoError(t, err)
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("work"), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":2}`,
	}})
	require.NoError(t, err)
	for i := range 5 {
		rec(f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("m", i)),
			MessageAttributes: map[string]types.MessageAttributeValue{"n": {DataType: aws.String("Number"), StringValue: aws.String(fmt.Sprint(i))}}}))
	}
	all := []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}
	for range 4 {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 3,
			MessageSystemAttributeNames: all, MessageAttributeNames: []string{"All"}})
		rec(out, err)
		if err == nil && len(out.Messages) > 0 {
			rec(f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: out.Messages[0].ReceiptHandle}))
		}
		f.Advance(31 * time.Second)
	}
	// A move task and a long poll: both run on the clock, and must come out the same too.
	rec(f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:123456789012:dlq"),
		MaxNumberOfMessagesPerSecond: aws.Int32(1)}))
	poll := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20, MessageSystemAttributeNames: all})
	f.Advance(20 * time.Second)
	r := <-poll
	rec(r.out, r.err)
	rec(f.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:123456789012:dlq")}))
	rec(f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq.QueueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: all}))
	rec(f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: aws.String("nope")}))
	rec(f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []types.QueueAttributeName{"All"}}))
	return log
}

func TestSameCallsGiveIdenticalResultsOnTwoFakes(t *testing.T) {
	a, b := scenario(t, New()), scenario(t, New())
	require.NotEmpty(t, a)
	assert.Equal(t, a, b)
	c := scenario(t, New(WithSeed(7)))
	assert.NotEqual(t, a, c, "another seed gives other identifiers")
}

// TestConcurrentProducersAndConsumersDeleteEveryMessageOnce runs 8 producers and 8
// consumers on one queue while the clock expires visibility timeouts, and checks that every
// message is deleted exactly once.
func TestConcurrentProducersAndConsumersDeleteEveryMessageOnce(t *testing.T) {
	const producers, consumers, perProducer = 8, 8, 200
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("busy"),
		Attributes: map[string]string{"VisibilityTimeout": "5"}})
	require.NoError(t, err)

	var (
		mu       sync.Mutex
		deleted  = map[string]int{}
		sent     = map[string]bool{}
		progress = sync.NewCond(&mu) // a consumer finished a round
	)
	var prod sync.WaitGroup
	for p := range producers {
		prod.Add(1)
		go func() {
			defer prod.Done()
			for i := range perProducer {
				out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprintf("%d-%d", p, i))})
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				sent[*out.MessageId] = true
				mu.Unlock()
			}
		}()
	}
	stop := make(chan struct{})
	var cons sync.WaitGroup
	for c := range consumers {
		cons.Add(1)
		go func() {
			defer cons.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
				if !assert.NoError(t, err) {
					return
				}
				for i, m := range out.Messages {
					// Some consumers "crash" on some messages: the visibility timeout
					// brings those back.
					if (c+n+i)%5 == 0 {
						continue
					}
					_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
					if !assert.NoError(t, err) {
						return
					}
					mu.Lock()
					deleted[*m.MessageId]++
					mu.Unlock()
				}
				mu.Lock()
				progress.Broadcast()
				mu.Unlock()
			}
		}()
	}
	prod.Wait()
	// The clock moves once the consumers have taken every visible message, so that each
	// message crashed on comes back.
	for advances := 0; advances < 1000; {
		mu.Lock()
		done := len(deleted) == producers*perProducer
		mu.Unlock()
		if done {
			break
		}
		if info, _ := f.Queue("busy"); info.Visible > 0 {
			mu.Lock()
			progress.Wait() // consumers poll without end until stop: the next round comes
			mu.Unlock()
			continue
		}
		f.Advance(6 * time.Second)
		advances++
	}
	close(stop)
	cons.Wait()

	// Every message was received and deleted by some consumer (none lost). A consumer whose
	// handle went stale may delete a message another consumer already deleted: SQS answers
	// that with success too, so deleted[id] can exceed 1. The queue being empty with no
	// retention expiry and no DLQ means each message was removed exactly once, which each
	// message's timeline confirms: one deletion in it.
	require.Len(t, sent, producers*perProducer)
	calls := 0
	for id := range sent {
		assert.GreaterOrEqual(t, deleted[id], 1, "message %s deleted", id)
		calls += deleted[id]
		removals := 0
		for _, e := range f.Timeline(id).Events {
			if e.Kind == EventDeleted {
				removals++
			}
		}
		assert.Equal(t, 1, removals, "message %s removed exactly once", id)
	}
	assert.Len(t, deleted, len(sent), "only sent messages were received")
	info, err := f.Queue("busy")
	require.NoError(t, err)
	assert.EqualValues(t, calls, info.Stats.NumberOfMessagesDeleted,
		"CloudWatch counts every successful delete, duplicates included")
	attrs, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []types.QueueAttributeName{"All"}})
	require.NoError(t, err)
	assert.Equal(t, "0", attrs.Attributes["ApproximateNumberOfMessages"])
	assert.Equal(t, "0", attrs.Attributes["ApproximateNumberOfMessagesNotVisible"])
}

func TestErrorsMatchTheirTypedFormThroughErrorsAs(t *testing.T) {
	f := New()
	_, err := f.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	var qdne *types.QueueDoesNotExist
	require.True(t, errors.As(err, &qdne))
	assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", qdne.ErrorCode())
}

// TestFakeKeepsATestAuthorsMethodSet pins issue 31's bound on what a test author reads in
// go doc: Fake's methods are the 23 of *sqs.Client, Options, and the test aids, at most 50 in
// all. A method only a companion needs belongs in package companion instead.
func TestFakeKeepsATestAuthorsMethodSet(t *testing.T) {
	n := reflect.TypeFor[*Fake]().NumMethod()
	assert.LessOrEqual(t, n, 50, "Fake has %d exported methods; what only companions call goes in package companion", n)
	for _, name := range []string{"BeginServiceCall", "OnMove", "OnReset", "CatchUp", "JoinStep", "Epoch", "Seed", "Partition", "AccountID", "Region", "QueuePage", "NextVisible", "VerifyRequest"} {
		_, ok := reflect.TypeFor[*Fake]().MethodByName(name)
		assert.False(t, ok, "Fake.%s is the companions' (package companion)", name)
	}
}
