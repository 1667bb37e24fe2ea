package lambdasqs

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
)

// A pause forgets the batches the poller holds and when the waiting one would expire, so
// that a batch waiting for a slot after the mapping resumes gets its own expiry.
func TestAPauseForgetsTheHeldBatchesAndTheirExpiry(t *testing.T) {
	f := sqsfake.New()
	_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	if err != nil {
		t.Fatal(err)
	}
	trig, err := New(f, "q", func(context.Context, events.SQSEvent) error { return nil }, Config{})
	if err != nil {
		t.Fatal(err)
	}
	trig.pendingExpires = f.Now().Add(time.Minute)
	trig.held = []*held{{}}
	trig.SetEnabled(false)
	trig.SetEnabled(true)
	if err := trig.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !trig.pendingExpires.IsZero() || trig.held != nil {
		t.Errorf("after a pause: pendingExpires %v, held %v; want both reset", trig.pendingExpires, trig.held)
	}
}
