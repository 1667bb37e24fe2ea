package snsfake_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
	"github.com/sqsfake/sqsfake/snsfake"
)

// queueFor creates a queue whose policy lets the topic deliver into it, and returns its ARN.
func queueFor(f *sqsfake.Fake, name, topicArn string) string {
	arn := "arn:aws:sqs:us-east-1:123456789012:" + name
	attrs := map[string]string{"Policy": snsfake.QueuePolicy(arn, topicArn)}
	if strings.HasSuffix(name, ".fifo") {
		attrs["FifoQueue"] = "true"
	}
	if _, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs}); err != nil {
		panic(err)
	}
	return arn
}

func bodies(f *sqsfake.Fake, queue string) []string {
	info, _ := f.Queue(queue)
	out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(info.URL), MaxNumberOfMessages: 10})
	if err != nil {
		panic(err)
	}
	var b []string
	for _, m := range out.Messages {
		b = append(b, *m.Body)
	}
	return b
}

// A topic fans out to two queues, each subscription with its own filter policy: one on a
// message attribute, one on the body. SubscribeQueue writes into each queue's Policy the
// statement that lets the topic send, then subscribes it.
func Example_fanOutWithFilters() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	for _, q := range []struct {
		name string
		sub  map[string]string
	}{
		{"eu-orders", map[string]string{"FilterPolicy": `{"region":["eu"]}`, "RawMessageDelivery": "true"}},
		{"big-orders", map[string]string{"FilterPolicyScope": "MessageBody", "FilterPolicy": `{"total":[{"numeric":[">=",100]}]}`,
			"RawMessageDelivery": "true"}},
	} {
		_, _ = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(q.name)})
		if _, err := topics.SubscribeQueue(ctx, *tp.TopicArn, q.name, q.sub); err != nil {
			panic(err)
		}
	}
	for _, o := range []struct{ region, body string }{{"eu", `{"total":20}`}, {"us", `{"total":250}`}, {"eu", `{"total":120}`}} {
		_, err := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String(o.body),
			MessageAttributes: map[string]snstypes.MessageAttributeValue{"region": {DataType: aws.String("String"), StringValue: aws.String(o.region)}}})
		if err != nil {
			panic(err)
		}
	}
	fmt.Println("eu-orders: ", bodies(f, "eu-orders"))
	fmt.Println("big-orders:", bodies(f, "big-orders"))
	// Output:
	// eu-orders:  [{"total":20} {"total":120}]
	// big-orders: [{"total":250} {"total":120}]
}

// Raw delivery puts the message itself in the queue, its attributes as SQS message
// attributes; otherwise the queue gets SNS's JSON envelope, signed.
func Example_rawVersusEnveloped() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("events")})
	for _, q := range []struct{ name, raw string }{{"raw", "true"}, {"enveloped", "false"}} {
		_, _ = topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"),
			Endpoint: aws.String(queueFor(f, q.name, *tp.TopicArn)), Attributes: map[string]string{"RawMessageDelivery": q.raw}})
	}
	_, _ = topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("hello"),
		MessageAttributes: map[string]snstypes.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("greeting")}}})

	fmt.Println("raw:", bodies(f, "raw")[0])
	var env map[string]any
	_ = json.Unmarshal([]byte(bodies(f, "enveloped")[0]), &env)
	fmt.Println("enveloped:", env["Type"], env["Message"], env["SignatureVersion"], env["MessageAttributes"])
	// Output:
	// raw: hello
	// enveloped: Notification hello 1 map[kind:map[Type:String Value:greeting]]
}

// A queue whose policy does not let the topic send loses the message, as on AWS: Publish
// succeeds, the queue stays empty, and the fake says what happened.
func Example_lostToAQueuePolicy() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("alerts")})
	_, _ = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("no-policy")}) // same account, no Policy
	_, _ = topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"),
		Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:no-policy")})
	out, err := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("disk full")})
	fmt.Println("publish error:", err)
	fmt.Println("in the queue:", len(bodies(f, "no-policy")))
	ds, _ := topics.Deliveries("no-policy")
	fmt.Println(ds[0].Outcome, "-", ds[0].Reason)
	p, _ := topics.Publication(*out.MessageId)
	fmt.Println(len(p.Deliveries), "delivery recorded")
	// Output:
	// publish error: <nil>
	// in the queue: 0
	// lost - AccessDenied: User: sns.amazonaws.com is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:123456789012:no-policy because no resource-based policy allows the sqs:sendmessage action
	// 1 delivery recorded
}

// SNS into a queue in three statements: the topic, the queue, and SubscribeQueue, which adds
// to the queue's own Policy the statement the SQS console adds ("Subscribe to Amazon SNS
// topic") and subscribes the queue. The policy is AWS's shape, readable and editable as any.
func ExampleFake_SubscribeQueue() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)

	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	_, _ = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("billing")})
	_, err := topics.SubscribeQueue(ctx, *tp.TopicArn, "billing", map[string]string{"RawMessageDelivery": "true"})
	fmt.Println("subscribed:", err)

	out, _ := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("order 1")})
	p, _ := topics.Publication(*out.MessageId)
	fmt.Println(p.Deliveries[0].Outcome, "into billing:", bodies(f, "billing"))
	info, _ := f.Queue("billing")
	var policy struct{ Statement []map[string]any }
	_ = json.Unmarshal([]byte(info.Attributes["Policy"]), &policy)
	fmt.Println(policy.Statement[0]["Sid"], policy.Statement[0]["Principal"], policy.Statement[0]["Action"], policy.Statement[0]["Condition"])
	// Output:
	// subscribed: <nil>
	// delivered into billing: [order 1]
	// topic-subscription-arn:aws:sns:us-east-1:123456789012:orders map[AWS:*] SQS:SendMessage map[ArnLike:map[aws:SourceArn:arn:aws:sns:us-east-1:123456789012:orders]]
}

// A FIFO topic feeds a FIFO queue that a Lambda function consumes (lambdasqs): the
// handler sees each group's messages in order, with the group and deduplication ids SNS
// carried over.
func Example_fifoTopicToLambda() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("payments.fifo"),
		Attributes: map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"}})
	_, _ = topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"),
		Endpoint: aws.String(queueFor(f, "payments.fifo", *tp.TopicArn)), Attributes: map[string]string{"RawMessageDelivery": "true"}})
	for _, m := range []string{"open", "pay", "pay", "close"} { // the second "pay" is a duplicate
		_, _ = topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String(m), MessageGroupId: aws.String("account-7")})
	}
	trig, err := lambdasqs.New(f, "payments.fifo", func(ctx context.Context, ev events.SQSEvent) error {
		for _, r := range ev.Records {
			fmt.Println(r.Attributes["MessageGroupId"], r.Body)
		}
		return nil
	}, lambdasqs.Config{})
	if err != nil {
		panic(err)
	}
	if err := trig.Poll(ctx); err != nil {
		panic(err)
	}
	// Output:
	// account-7 open
	// account-7 pay
	// account-7 close
}

// A topic owner subscribes another account's queue: the subscription waits for its
// confirmation, whose token SNS delivers into that queue; ConfirmSubscription with it
// starts the deliveries.
func Example_crossAccountConfirmation() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("events")})
	theirs := sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"})
	queueArn := "arn:aws:sqs:us-east-1:222222222222:inbox"
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("inbox"),
		Attributes: map[string]string{"Policy": snsfake.QueuePolicy(queueArn, *tp.TopicArn)}}, theirs)

	sub, _ := topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(queueArn)})
	fmt.Println("Subscribe:", *sub.SubscriptionArn)

	got, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}, theirs)
	var confirmation struct{ Type, Token string }
	_ = json.Unmarshal([]byte(*got.Messages[0].Body), &confirmation)
	fmt.Println("in the queue:", confirmation.Type)
	f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle}, theirs)

	confirmed, _ := topics.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String(confirmation.Token)},
		snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"}))
	fmt.Println("confirmed:", strings.HasPrefix(*confirmed.SubscriptionArn, *tp.TopicArn+":"))

	_, _ = topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("hello, other account")})
	got, _ = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}, theirs)
	var note struct{ Type, Message string }
	_ = json.Unmarshal([]byte(*got.Messages[0].Body), &note)
	fmt.Println("in the queue:", note.Type, note.Message)
	// Output:
	// Subscribe: pending confirmation
	// in the queue: SubscriptionConfirmation
	// confirmed: true
	// in the queue: Notification hello, other account
}

// A producer's Publish whose answer is lost (the message was published all the same) is
// retried: the queue gets the message twice, the duplicate a consumer must tolerate. A
// PublishBatch fault fails one entry only, the partial failure a producer retries.
func Example_faultsOnPublish() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	_, _ = topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"),
		Endpoint: aws.String(queueFor(f, "orders", *tp.TopicArn)), Attributes: map[string]string{"RawMessageDelivery": "true"}})

	f.InjectFault(sqsfake.Fault{Operation: "SNS.Publish", Times: 1, LoseResponse: true})
	in := &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("order 1")}
	_, err := topics.Publish(ctx, in)
	fmt.Println("first attempt timed out:", errors.Is(err, context.DeadlineExceeded))
	_, err = topics.Publish(ctx, in)
	fmt.Println("retry:", err)
	fmt.Println(bodies(f, "orders"))
	fmt.Println(len(f.Calls(sqsfake.CallFilter{Operation: "SNS.Publish"})), "SNS.Publish calls")

	f.InjectFault(sqsfake.Fault{Operation: "SNS.PublishBatch", Times: 1, FailEntries: func(id string) bool { return id == "b" }})
	out, _ := topics.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: tp.TopicArn, PublishBatchRequestEntries: []snstypes.PublishBatchRequestEntry{
		{Id: aws.String("a"), Message: aws.String("order 2")}, {Id: aws.String("b"), Message: aws.String("order 3")}}})
	fmt.Println(len(out.Successful), "published;", *out.Failed[0].Id, "failed with", *out.Failed[0].Code)
	// Output:
	// first attempt timed out: true
	// retry: <nil>
	// [order 1 order 1]
	// 2 SNS.Publish calls
	// 1 published; b failed with InternalError
}
