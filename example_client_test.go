package sqsfake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
)

// Code that needs the concrete *sqs.Client gets a real one from Client: the SDK validates
// inputs, checks message digests and wraps errors as against AWS, while the fake answers in
// memory on its virtual clock.
func ExampleFake_Client() {
	ctx := context.Background()
	f := sqsfake.New()
	var client *sqs.Client = f.Client()

	q, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")})
	out, _ := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	fmt.Println("received:", *out.Messages[0].Body)

	// The fake and its client share one state and one clock.
	f.Advance(30 * time.Second) // the queue's visibility timeout
	again, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	fmt.Println("back after the visibility timeout:", *again.Messages[0].Body)

	_, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl})
	fmt.Println(err)

	_, err = client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	var missing *types.QueueDoesNotExist
	fmt.Println(errors.As(err, &missing), missing.ErrorCode())
	// Output:
	// received: hello
	// back after the visibility timeout: hello
	// operation error SQS: SendMessage, 1 validation error(s) found.
	// - missing required field, SendMessageInput.MessageBody.
	//
	// true AWS.SimpleQueueService.NonExistentQueue
}

// Handler serves SQS's wire protocol, so any SDK, the AWS CLI or boto3 can use the fake
// through an endpoint URL. Here a stock Go client talks to it over a loopback server.
func ExampleFake_Handler() {
	ctx := context.Background()
	srv := httptest.NewServer(sqsfake.New().Handler())
	defer srv.Close()

	client := sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  aws.AnonymousCredentials{},
	})
	q, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	sent, _ := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("over HTTP")})
	fmt.Println("MD5 of body:", *sent.MD5OfMessageBody)

	_, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: aws.String("bogus")})
	var invalid *types.ReceiptHandleIsInvalid
	fmt.Println("typed error over the wire:", errors.As(err, &invalid))
	// Output:
	// MD5 of body: 6792072aca46ff6d8773516f9530ad73
	// typed error over the wire: true
}

// HTTPClient runs the SDK's whole HTTP path — serialization, signing, retries,
// deserialization — against the fake without a socket, so it works inside a
// testing/synctest bubble too.
func ExampleFake_HTTPClient() {
	ctx := context.Background()
	f := sqsfake.New()
	client := sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://sqs.fake.invalid"),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   f.HTTPClient(),
	})
	q, _ := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	fmt.Println(*q.QueueUrl)
	// Output:
	// https://sqs.us-east-1.amazonaws.com/123456789012/jobs
}
