package sqsfake_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"

	"github.com/sqsfake/sqsfake"
)

// A consumer in account 222222222222 reads a queue of the fake's own account. Without a
// permission SQS refuses it; once the owner grants it ReceiveMessage and DeleteMessage
// (AddPermission, or a Policy), it consumes through the queue's URL. ActAs gives a client —
// or one call — another account, region or principal.
func Example_crossAccountConsumer() {
	ctx := context.Background()
	f := sqsfake.New() // the owner: account 123456789012 in us-east-1
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("order-1")})

	consumer := f.Client(sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"}))
	_, err := consumer.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	var api smithy.APIError
	if errors.As(err, &api) {
		fmt.Println(api.ErrorCode()+":", api.ErrorMessage())
	}

	f.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: q.QueueUrl, Label: aws.String("consumer"),
		AWSAccountIds: []string{"222222222222"}, Actions: []string{"ReceiveMessage", "DeleteMessage"}})
	out, _ := consumer.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	fmt.Println("received:", *out.Messages[0].Body)
	consumer.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: out.Messages[0].ReceiptHandle})

	// The call record says who acted.
	calls := f.Calls(sqsfake.CallFilter{Operation: "DeleteMessage"})
	fmt.Println(calls[0].Caller.AccountID, calls[0].Err == nil)
	// Output:
	// AccessDenied: User: arn:aws:iam::222222222222:root is not authorized to perform: sqs:receivemessage on resource: arn:aws:sqs:us-east-1:123456789012:orders because no resource-based policy allows the sqs:receivemessage action
	// received: order-1
	// 222222222222 true
}

// A queue Policy with an explicit Deny refuses a producer of the queue's own account: here
// the sessions of the role reporting may not send. The refusal is SQS's AccessDenied (HTTP
// 403), and nothing reaches the queue.
func Example_producerDeniedByPolicy() {
	ctx := context.Background()
	f := sqsfake.New()
	policy := `{"Version":"2012-10-17","Statement":[{"Sid":"ReportingReadsOnly","Effect":"Deny",
		"Principal":{"AWS":"arn:aws:iam::123456789012:role/reporting"},"Action":"sqs:Send*","Resource":"*"}]}`
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("events"),
		Attributes: map[string]string{"Policy": policy}})

	reporting := sqsfake.ActAs(sqsfake.Identity{PrincipalARN: "arn:aws:sts::123456789012:assumed-role/reporting/nightly"})
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, reporting)
	fmt.Println(err)

	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("y")})
	fmt.Println("the account's root user sends:", err == nil)
	info, _ := f.Queue("events")
	fmt.Println("messages in the queue:", len(info.Messages))
	// Output:
	// operation error SQS: SendMessage, https response error StatusCode: 403, RequestID: fb3d97af-1455-4901-aaee-d5a971f64675, api error AccessDenied: User: arn:aws:sts::123456789012:assumed-role/reporting/nightly is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:123456789012:events with an explicit deny in a resource-based policy
	// the account's root user sends: true
	// messages in the queue: 1
}

// Queues live per account and region: one name in two regions is two queues. Over the wire
// the caller is the request's signature — its region, and its access key id when that is 12
// digits — so a stock client configured for eu-west-1 sees eu-west-1's queues. With
// WithEndpoint (the server's URLs), a queue outside the fake's own region has a URL that
// names its region, /queue/<region>/<account>/<name>.
func Example_regions() {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithEndpoint("http://127.0.0.1:9324"))
	eu := sqs.New(sqs.Options{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:9324"),
		HTTPClient: f.HTTPClient(), // the wire protocol in memory: no socket
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "222222222222", SecretAccessKey: "any"}, nil
		})})
	home, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	away, _ := eu.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	fmt.Println(*home.QueueUrl)
	fmt.Println(*away.QueueUrl)
	for _, info := range f.Queues() {
		fmt.Println(info.Arn)
	}
	// Output:
	// http://127.0.0.1:9324/123456789012/jobs
	// http://127.0.0.1:9324/queue/eu-west-1/222222222222/jobs
	// arn:aws:sqs:us-east-1:123456789012:jobs
	// arn:aws:sqs:eu-west-1:222222222222:jobs
}

// Signed mode: with WithCredentials the wire door (Handler, HTTPClient, cmd/sqsfake) checks
// every request's SigV4 signature with the SDK's own signer, and a request signed with a key
// the fake knows acts as that key's principal. A wrong secret gets AWS's
// SignatureDoesNotMatch, and nothing reaches the queue.
func ExampleWithCredentials() {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithCredentials(sqsfake.Credential{
		AccessKeyID: "AKIAALICE", SecretAccessKey: "alice-secret",
		PrincipalARN: "arn:aws:iam::123456789012:user/alice",
	}))
	client := func(secret string) *sqs.Client {
		return sqs.New(sqs.Options{Region: "us-east-1", HTTPClient: f.HTTPClient(), // in memory, no socket
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "AKIAALICE", SecretAccessKey: secret}, nil
			})})
	}
	q, err := client("alice-secret").CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	fmt.Println(*q.QueueUrl, err)

	_, err = client("guess").SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	var api smithy.APIError
	errors.As(err, &api)
	fmt.Println(api.ErrorCode())

	for _, c := range f.Calls() {
		fmt.Println(c) // who acted, and a refused request as unauthenticated
	}
	// Output:
	// https://sqs.us-east-1.amazonaws.com/123456789012/jobs <nil>
	// SignatureDoesNotMatch
	// #1 2025-01-01T00:00:00Z CreateQueue jobs → ok [http] [as arn:aws:iam::123456789012:user/alice in us-east-1]
	// #2 2025-01-01T00:00:00Z SendMessage → error SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and sign… [http] [unauthenticated]
}
