package sqsfake_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
)

// Worker is code under test: a loop that long-polls, handles what it receives and deletes
// it, until its context ends.
type Worker struct {
	API Consumer
	URL string

	mu      sync.Mutex
	handled []string
}

// Run polls until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	for {
		out, err := w.API.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &w.URL, WaitTimeSeconds: 20, MaxNumberOfMessages: 10})
		if err != nil {
			return
		}
		for _, m := range out.Messages {
			w.mu.Lock()
			w.handled = append(w.handled, *m.Body)
			w.mu.Unlock()
			if _, err := w.API.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &w.URL, ReceiptHandle: m.ReceiptHandle}); err != nil {
				return
			}
		}
	}
}

// Handled returns the bodies handled so far.
func (w *Worker) Handled() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.handled...)
}

// A worker loop has done all it can once its next long poll parks: WaitForPollers(ctx, 1)
// waits for that, whatever calls the loop makes on the way (receives, deletes, or any added
// later), so the test counts none of them. The context's deadline makes a wait that cannot
// end — a loop that never polls again — fail instead of hang.
func ExampleFake_WaitForPollers_workerLoop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	send := func(body string) {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)})
	}
	send("job-1")
	send("job-2")

	w := &Worker{API: f, URL: *q.QueueUrl}
	workerCtx, stop := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() { w.Run(workerCtx); close(stopped) }()
	defer func() { stop(); <-stopped }()

	if err := f.WaitForPollers(ctx, 1); err != nil { // the worker drained the queue and polls again
		fmt.Println(err)
		return
	}
	fmt.Println("handled:", w.Handled())

	send("job-3") // handed to the parked poll at once: no poll is parked now
	send("job-4")
	if err := f.WaitForPollers(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("handled:", w.Handled())

	f.Advance(20 * time.Second) // the poll ends empty; the worker polls again
	if err := f.WaitForPollers(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	info, _ := f.Queue("jobs")
	fmt.Println("empty receives:", info.Stats.NumberOfEmptyReceives, "left:", info.Visible+info.InFlight)
	// Output:
	// handled: [job-1 job-2]
	// handled: [job-1 job-2 job-3 job-4]
	// empty receives: 1 left: 0
}
