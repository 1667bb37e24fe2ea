package sqsfake_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
)

// The package documentation's first test, as it is written there: it must pass.
func TestAMessageComesBackAfterItsVisibilityTimeout(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.NewForTest(t) // fails t if a long poll is left waiting
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")})
	f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}) // a consumer that crashes before it deletes
	sqsfake.AssertInFlight(t, f, "jobs", *sent.MessageId)
	f.Advance(30 * time.Second) // the visibility timeout lapses
	sqsfake.AssertVisibleCount(t, f, "jobs", 1)
}
