package companion_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// bucket is a companion in a few lines: an S3 bucket whose PutObject notifies a queue, as S3
// event notifications do. Its calls are in the fake's call record as "S3.PutObject" and open
// to injected faults, its notifications are SendMessage calls made as the service principal
// s3.amazonaws.com (which the queue's Policy must admit, as on AWS), and the fake's Reset
// empties it.
type bucket struct {
	f        *sqsfake.Fake
	name     string
	queueURL string
	objects  map[string]string
}

func newBucket(f *sqsfake.Fake, name, queueURL string) *bucket {
	b := &bucket{f: f, name: name, queueURL: queueURL, objects: map[string]string{}}
	companion.RegisterOperations(f, "S3.PutObject")
	companion.OnReset(f, func() { clear(b.objects) })
	return b
}

func (b *bucket) put(ctx context.Context, key, body string) error {
	call := companion.BeginServiceCall(b.f, "S3.PutObject", sqsfake.DoorMethods, nil, key, true)
	err := call.Refusal(ctx) // an injected Err fails the call before it runs
	if err == nil {
		b.objects[key] = body
		as := companion.WithService(ctx, companion.ServicePrincipal{
			Service: "s3.amazonaws.com", SourceArn: "arn:" + companion.Partition(b.f) + ":s3:::" + b.name, SourceAccount: companion.AccountID(b.f)})
		// S3 notifies after the fact: a notification the queue refuses is lost, not the put's error.
		b.f.SendMessage(as, &sqs.SendMessageInput{QueueUrl: &b.queueURL, MessageBody: aws.String(`{"key":"` + key + `"}`)})
		err = call.Settle(ctx, nil) // LoseResponse and Latency act here
	}
	call.End(err)
	return err
}

// A companion joins the fake's call record, faults and Reset through this package, and acts
// on the queues through the fake's own methods.
func Example() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("uploads"), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"Service":"s3.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"}]}`}})
	photos := newBucket(f, "photos", *q.QueueUrl)

	f.InjectFault(sqsfake.Fault{Operation: "S3.PutObject", Err: errors.New("SlowDown"), Times: 1})
	fmt.Println("first put:", photos.put(ctx, "cat.jpg", "…"))
	fmt.Println("second put:", photos.put(ctx, "cat.jpg", "…"))
	for _, c := range f.Calls() {
		fmt.Println(c.Seq, c.Operation, c.Caller.PrincipalARN, c.Fault)
	}
	info, _ := f.Queue("uploads")
	fmt.Println(info.Visible, "notification in the queue")
	// Output:
	// first put: SlowDown
	// second put: <nil>
	// 1 CreateQueue arn:aws:iam::123456789012:root false
	// 2 S3.PutObject arn:aws:iam::123456789012:root true
	// 3 S3.PutObject arn:aws:iam::123456789012:root false
	// 4 SendMessage s3.amazonaws.com false
	// 1 notification in the queue
}

// On a benbjohnson *clock.Mock the fake follows the mock's own Add: a companion's OnMove
// function is called at the move's start, at each instant it asked for, and at the mock's
// time — the instants Advance would have stepped — with the fake's time pinned at each,
// whichever goroutine runs the step. CatchUp (or any call into the fake) finishes the job.
func ExampleCatchUp() {
	mock := sqsfake.NewMockClock()
	f := sqsfake.New(sqsfake.WithClock(mock))
	start := f.Now()
	companion.OnMove(f, func(now time.Time) time.Time {
		fmt.Printf("step at +%v, the fake reads +%v\n", now.Sub(start), f.Now().Sub(start))
		if next := now.Add(25 * time.Second); next.Before(start.Add(time.Minute)) {
			return next
		}
		return time.Time{}
	})
	mock.Add(time.Minute) // the mock's own move, not f.Advance
	companion.CatchUp(f)
	fmt.Println("after the move the fake reads", f.Now().Sub(start))
	// Output:
	// step at +0s, the fake reads +0s
	// step at +25s, the fake reads +25s
	// step at +50s, the fake reads +50s
	// step at +1m0s, the fake reads +1m0s
	// after the move the fake reads 1m0s
}

// A companion whose OnMove function does its work on a goroutine of its own marks that
// goroutine with JoinStep: on a fake that follows a benbjohnson mock's own moves, its calls
// are then part of the step, whatever their context, and act at the instant stepped.
func ExampleJoinStep() {
	mock := sqsfake.NewMockClock()
	f := sqsfake.New(sqsfake.WithClock(mock))
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("ticks")})
	if err != nil {
		panic(err)
	}
	start := f.Now()
	companion.OnMove(f, func(now time.Time) time.Time {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer companion.JoinStep(f)()
			if _, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String("tick")}); err != nil {
				panic(err)
			}
		}()
		<-done
		if next := now.Add(20 * time.Second); !next.After(start.Add(time.Minute)) {
			return next
		}
		return time.Time{}
	})
	mock.Add(time.Minute) // the mock's own move
	q, err := f.Queue("ticks")
	if err != nil {
		panic(err)
	}
	for _, m := range q.Messages {
		fmt.Println("sent at +", m.SentAt.Sub(start))
	}
	// Output:
	// sent at + 0s
	// sent at + 20s
	// sent at + 40s
	// sent at + 1m0s
}

// A long queue read a page at a time, as a console or a server's state endpoint reads it:
// each page holds the queue's snapshot and up to limit messages in arrival order, and its
// Next cursor starts the next page.
func ExamplePage() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	for i := range 5 {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("job-", i))})
	}
	fmt.Println(companion.QueueNames(f))

	var after uint64
	for {
		page, _ := companion.Page(f, "jobs", after, 2)
		var bodies []string
		for _, m := range page.Messages {
			bodies = append(bodies, m.Body)
		}
		fmt.Println(page.Visible, "visible; page:", bodies, "truncated:", page.Truncated)
		if !page.Truncated {
			break
		}
		after = page.Next
	}
	// Output:
	// [jobs]
	// 5 visible; page: [job-0 job-1] truncated: true
	// 5 visible; page: [job-2 job-3] truncated: true
	// 5 visible; page: [job-4] truncated: false
}

// A poller that runs beside the fake — a Lambda trigger, a test's own driver — asks what is
// due next without rendering the queue's messages: NextVisible tells how many are visible now
// and when the next one may become available; Epoch tells whether the fake was reset since.
func ExampleNextVisible() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("now")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("later"), DelaySeconds: 10})

	at, visible, _ := companion.NextVisible(f, "jobs")
	fmt.Println(visible, at.Sub(f.Now()))
	f.Advance(at.Sub(f.Now()))
	_, visible, _ = companion.NextVisible(f, "jobs")
	fmt.Println(visible, companion.Epoch(f))
	// Output:
	// 1 10s
	// 2 0
}
