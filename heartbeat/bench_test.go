package heartbeat_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/heartbeat"
)

// BenchmarkTwelveHourDrive drives one heartbeat on the fake's default clock through the whole
// 12 hours SQS allows, in 30-second steps: a 60-second visibility timeout, an extension every
// 30 s, 1,438 extensions (the last one, due at 43,170 s, is not needed: the one before reached the limit). The bar: under 0.5 s an op.
func BenchmarkTwelveHourDrive(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		f := sqsfake.New()
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{"VisibilityTimeout": "60"}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("job")}); err != nil {
			b.Fatal(err)
		}
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		if err != nil || len(out.Messages) != 1 {
			b.Fatal(err, out)
		}
		k := heartbeat.New(f, *q.QueueUrl, heartbeat.WithClock(f.Clock()), heartbeat.WithLogger(slog.New(slog.DiscardHandler)))
		d := k.Hold(ctx, out.Messages[0], f.Now(), 60*time.Second)
		for range 1439 {
			if err := k.WaitArmed(ctx, 1); err != nil {
				b.Fatal(err)
			}
			f.Advance(30 * time.Second)
		}
		<-d.Done()
		if n := d.Extensions(); n != 1438 {
			b.Fatalf("%d extensions, want 1438", n)
		}
		d.Stop()
	}
}
