package sqsfake

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// sqsAPI is the method set shared by the three doors: *Fake, the *sqs.Client of Client, and a
// stock *sqs.Client talking to Handler.
type sqsAPI interface {
	AddPermission(context.Context, *sqs.AddPermissionInput, ...func(*sqs.Options)) (*sqs.AddPermissionOutput, error)
	CancelMessageMoveTask(context.Context, *sqs.CancelMessageMoveTaskInput, ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error)
	ChangeMessageVisibility(context.Context, *sqs.ChangeMessageVisibilityInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
	ChangeMessageVisibilityBatch(context.Context, *sqs.ChangeMessageVisibilityBatchInput, ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	CreateQueue(context.Context, *sqs.CreateQueueInput, ...func(*sqs.Options)) (*sqs.CreateQueueOutput, error)
	DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	DeleteMessageBatch(context.Context, *sqs.DeleteMessageBatchInput, ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	DeleteQueue(context.Context, *sqs.DeleteQueueInput, ...func(*sqs.Options)) (*sqs.DeleteQueueOutput, error)
	GetQueueAttributes(context.Context, *sqs.GetQueueAttributesInput, ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
	GetQueueUrl(context.Context, *sqs.GetQueueUrlInput, ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	ListDeadLetterSourceQueues(context.Context, *sqs.ListDeadLetterSourceQueuesInput, ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error)
	ListMessageMoveTasks(context.Context, *sqs.ListMessageMoveTasksInput, ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error)
	ListQueueTags(context.Context, *sqs.ListQueueTagsInput, ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error)
	ListQueues(context.Context, *sqs.ListQueuesInput, ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error)
	PurgeQueue(context.Context, *sqs.PurgeQueueInput, ...func(*sqs.Options)) (*sqs.PurgeQueueOutput, error)
	ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	RemovePermission(context.Context, *sqs.RemovePermissionInput, ...func(*sqs.Options)) (*sqs.RemovePermissionOutput, error)
	SendMessage(context.Context, *sqs.SendMessageInput, ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	SetQueueAttributes(context.Context, *sqs.SetQueueAttributesInput, ...func(*sqs.Options)) (*sqs.SetQueueAttributesOutput, error)
	StartMessageMoveTask(context.Context, *sqs.StartMessageMoveTaskInput, ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error)
	TagQueue(context.Context, *sqs.TagQueueInput, ...func(*sqs.Options)) (*sqs.TagQueueOutput, error)
	UntagQueue(context.Context, *sqs.UntagQueueInput, ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error)
}

var (
	_ sqsAPI = (*Fake)(nil)
	_ sqsAPI = (*sqs.Client)(nil)
)

// memoryClientOf returns a stock SDK client that reaches f's Handler through HTTPClient.
func memoryClientOf(f *Fake, optFns ...func(*sqs.Options)) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String("http://sqs.fake.invalid"),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
		HTTPClient:       f.HTTPClient(),
	}, optFns...)
}

// door is one way into a fresh fake.
type door struct {
	name string
	f    *Fake
	api  sqsAPI
	// normalize, if set, rewrites a result where the door's protocol words it otherwise.
	normalize func(string) string
}

// loopbackClientOf serves f's Handler on a loopback server for the test and returns a stock
// SDK client that reaches it over TCP.
func loopbackClientOf(t testing.TB, f *Fake, optFns ...func(*sqs.Options)) *sqs.Client {
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(srv.Close)
	return sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
	}, optFns...)
}

// doors returns the three doors onto fresh fakes, the wire door once more over a loopback
// socket, and once more in the query protocol.
func doors(t testing.TB) []*door {
	f1, f2, f3, f4, f5 := New(), New(), New(), New(), New()
	return []*door{
		{name: "methods", f: f1, api: f1},
		{name: "Client", f: f2, api: f2.Client()},
		{name: "Handler", f: f3, api: memoryClientOf(f3)},
		{name: "Handler over loopback", f: f4, api: loopbackClientOf(t, f4)},
		{name: "Handler, query protocol", f: f5, api: queryClientOf(f5), normalize: queryWording},
	}
}

// queryWording undoes the one message SQS words otherwise in the query protocol.
func queryWording(s string) string {
	return strings.ReplaceAll(s, "The specified queue does not exist for this wsdl version.", "The specified queue does not exist.")
}

// corpusState carries values from one step to the next: receipt handles, the MessageId a
// duplicate must get back, a move task's handle.
type corpusState struct {
	handles    []string // of the standard queue jobs, in the order they were received
	fifo       []string // of orders.fifo, from its latest receive
	fifoSentID string   // the MessageId of the latest FIFO send that was not a duplicate
	taskHandle string   // of the move task started on the DLQ
}

func (s *corpusState) handle(i int) *string {
	if i < len(s.handles) {
		return aws.String(s.handles[i])
	}
	return aws.String("no-such-handle")
}

func (s *corpusState) fifoHandle(i int) *string {
	if i < len(s.fifo) {
		return aws.String(s.fifo[i])
	}
	return aws.String("no-such-handle")
}

// step is one call of the corpus. want is "ok" when the call must succeed, or a substring of
// its error — its code, or its reason where the code alone does not say what happened; it
// keeps the corpus honest about what it exercises and pins the behaviour, not only the
// agreement of the doors. Every step states one.
type step struct {
	name string
	want string
	call func(ctx context.Context, d *door, s *corpusState) (any, error)
}

const (
	jobsURL    = "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"
	dlqURL     = "https://sqs.us-east-1.amazonaws.com/123456789012/dlq"
	dlqARN     = "arn:aws:sqs:us-east-1:123456789012:dlq"
	jobsARN    = "arn:aws:sqs:us-east-1:123456789012:jobs"
	missingARN = "arn:aws:sqs:us-east-1:123456789012:missing"
	fifoURL    = "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo"
	missingURL = "https://sqs.us-east-1.amazonaws.com/123456789012/missing"
	badHandle  = "not-a-receipt-handle"
)

func recv(ctx context.Context, d *door, s *corpusState, in *sqs.ReceiveMessageInput) (any, error) {
	out, err := d.api.ReceiveMessage(ctx, in)
	if err == nil {
		for _, m := range out.Messages {
			s.handles = append(s.handles, aws.ToString(m.ReceiptHandle))
		}
	}
	return out, err
}

// recvFIFO receives from orders.fifo and keeps the handles it returns, replacing those of
// the previous FIFO receive.
func recvFIFO(ctx context.Context, d *door, s *corpusState, in *sqs.ReceiveMessageInput) (*sqs.ReceiveMessageOutput, error) {
	in.QueueUrl = aws.String(fifoURL)
	out, err := d.api.ReceiveMessage(ctx, in)
	if err == nil {
		s.fifo = s.fifo[:0]
		for _, m := range out.Messages {
			s.fifo = append(s.fifo, aws.ToString(m.ReceiptHandle))
		}
	}
	return out, err
}

// sameHandles reports, as an error, a retried receive that did not return the messages and
// receipt handles of the receive it retries.
func sameHandles(out *sqs.ReceiveMessageOutput, want []string) error {
	var got []string
	for _, m := range out.Messages {
		got = append(got, aws.ToString(m.ReceiptHandle))
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("the retry returned handles %q, the first receive %q", got, want)
	}
	return nil
}

// sameMessageID reports, as an error, a FIFO send taken for a duplicate whose answer is not
// the original's MessageId.
func sameMessageID(out *sqs.SendMessageOutput, err error, original string) error {
	if err == nil && aws.ToString(out.MessageId) != original {
		return fmt.Errorf("the duplicate got MessageId %s, the original %s", aws.ToString(out.MessageId), original)
	}
	return err
}

// parked starts a long poll, waits until the fake has it parked, runs then (which should end
// the poll) and returns the poll's result.
func parked(ctx context.Context, d *door, s *corpusState, in *sqs.ReceiveMessageInput, then func()) (any, error) {
	type result struct {
		out any
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := recv(ctx, d, s, in)
		done <- result{out, err}
	}()
	if err := d.f.WaitForPollers(ctx, 1); err != nil {
		return nil, err
	}
	then()
	r := <-done
	return r.out, r.err
}

func attrs(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func sendEntries(n int) []types.SendMessageBatchRequestEntry {
	e := make([]types.SendMessageBatchRequestEntry, n)
	for i := range e {
		e[i] = types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint("e", i)), MessageBody: aws.String(fmt.Sprint("batch ", i))}
	}
	return e
}

// corpus covers every operation with good and bad inputs (TestCorpusCoversEveryOperation
// keeps it so). Steps run in order on one fake per door and share its clock: a step that
// moves the clock moves it for every step after it, so new steps that need time to pass go
// where the time they add changes nothing that follows — the last sections.
var corpus = []step{
	// Queues.
	{"create dlq", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	}},
	{"create jobs with redrive and tags", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"),
			Attributes: attrs("VisibilityTimeout", "30", "RedrivePolicy", `{"deadLetterTargetArn":"`+dlqARN+`","maxReceiveCount":"2"}`),
			Tags:       map[string]string{"team": "a"}})
	}},
	{"create jobs again, same attributes", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: attrs("VisibilityTimeout", "30")})
	}},
	{"create jobs again, other attributes", "QueueAlreadyExists", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: attrs("VisibilityTimeout", "60")})
	}},
	{"create with a bad name", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bad name!")})
	}},
	{"create with an unknown attribute", "InvalidAttributeName", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("other"), Attributes: attrs("Bogus", "1")})
	}},
	{"create with a bad attribute value", "InvalidAttributeValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("other"), Attributes: attrs("DelaySeconds", "901")})
	}},
	{"create nil input", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, nil)
	}},
	{"create a FIFO queue", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders.fifo"), Attributes: attrs("FifoQueue", "true")})
	}},
	{"get url", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")})
	}},
	{"get url of a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	}},
	{"get url of another account", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs"), QueueOwnerAWSAccountId: aws.String("999999999999")})
	}},
	{"get url without a name", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{})
	}},
	{"list queues", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListQueues(ctx, nil)
	}},
	{"list queues by prefix", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("j")})
	}},
	{"list queues page by page", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		var pages []any
		p := sqs.NewListQueuesPaginator(d.api, &sqs.ListQueuesInput{MaxResults: aws.Int32(1)})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			pages = append(pages, out)
		}
		return pages, nil
	}},
	{"list queues with MaxResults 0", "MaxResults", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListQueues(ctx, &sqs.ListQueuesInput{MaxResults: aws.Int32(0)})
	}},
	{"list queues with a bad token", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListQueues(ctx, &sqs.ListQueuesInput{MaxResults: aws.Int32(1), NextToken: aws.String("!!!")})
	}},
	{"get all attributes", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(jobsURL), AttributeNames: []types.QueueAttributeName{"All"}})
	}},
	{"get some attributes", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(jobsURL), AttributeNames: []types.QueueAttributeName{"QueueArn", "VisibilityTimeout"}})
	}},
	{"get an unknown attribute", "InvalidAttributeName", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(jobsURL), AttributeNames: []types.QueueAttributeName{"Bogus"}})
	}},
	{"get attributes of a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(missingURL)})
	}},
	{"set an attribute", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String("jobs"), Attributes: attrs("MaximumMessageSize", "2048")})
	}},
	{"set a bad attribute value", "InvalidAttributeValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(jobsURL), Attributes: attrs("VisibilityTimeout", "-1")})
	}},
	{"set an unknown attribute", "InvalidAttributeName", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(jobsURL), Attributes: attrs("Bogus", "1")})
	}},
	{"set attributes without attributes", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(jobsURL)})
	}},
	// Tags and permissions.
	{"tag", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(jobsURL), Tags: map[string]string{"env": "test", "owner": "me"}})
	}},
	{"untag", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(jobsURL), TagKeys: []string{"owner"}})
	}},
	{"untag without tag keys", "missing required field, UntagQueueInput.TagKeys", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(jobsURL)})
	}},
	{"untag an empty list of keys", "InvalidParameterValue: Tag keys must be between 1 and 128 characters in length.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(jobsURL), TagKeys: []string{}})
	}},
	{"untag a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(missingURL), TagKeys: []string{"owner"}})
	}},
	{"list tags", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(jobsURL)})
	}},
	{"tag without tags", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(jobsURL)})
	}},
	{"list tags of a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(missingURL)})
	}},
	{"add permission", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(jobsURL), Label: aws.String("p1"),
			AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage", "ReceiveMessage"}})
	}},
	{"add permission with the same label", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(jobsURL), Label: aws.String("p1"),
			AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}})
	}},
	{"add permission without actions", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: aws.String(jobsURL), Label: aws.String("p2"), AWSAccountIds: []string{"111122223333"}})
	}},
	{"policy after add", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(jobsURL), AttributeNames: []types.QueueAttributeName{"Policy"}})
	}},
	{"remove permission", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: aws.String(jobsURL), Label: aws.String("p1")})
	}},
	{"remove an unknown permission", "InvalidParameterValue: Value nope for parameter Label is invalid. Reason: can't find label.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: aws.String(jobsURL), Label: aws.String("nope")})
	}},
	// Sending.
	{"send with attributes", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("hello <world> & ünïcödé"),
			MessageAttributes: map[string]types.MessageAttributeValue{
				"s": {DataType: aws.String("String"), StringValue: aws.String("x")},
				"n": {DataType: aws.String("Number.int"), StringValue: aws.String("42")},
				"b": {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2, 255}},
			},
			MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
				"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")},
			}})
	}},
	{"send with a delay", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("later"), DelaySeconds: 5})
	}},
	{"send an empty body", "MissingParameter", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("")})
	}},
	{"send invalid UTF-8", "checksum", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("bad \xff byte")})
	}},
	{"send invalid UTF-8 without the checksum check", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("bad \xff byte")},
			func(o *sqs.Options) { o.DisableMessageChecksumValidation = true })
	}},
	{"send a forbidden character", "InvalidMessageContents", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("bell \x07")})
	}},
	{"send a body over MaximumMessageSize", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String(strings.Repeat("x", 2049))})
	}},
	{"send with a delay out of range", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("x"), DelaySeconds: 901})
	}},
	{"send an attribute without DataType", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("x"),
			MessageAttributes: map[string]types.MessageAttributeValue{"a": {StringValue: aws.String("v")}}})
	}},
	{"send an empty attribute value", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("x"),
			MessageAttributes: map[string]types.MessageAttributeValue{"a": {DataType: aws.String("String"), StringValue: aws.String("")}}})
	}},
	{"send without a queue", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{})
	}},
	{"send to a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(missingURL), MessageBody: aws.String("x")})
	}},
	{"send a batch with a failing entry", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		e := sendEntries(3)
		e[1].DelaySeconds = 1000
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(jobsURL), Entries: e})
	}},
	{"send a batch with an empty body: the entry fails with InvalidParameterValue, not MissingParameter", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(jobsURL), Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("empty"), MessageBody: aws.String("")}}})
		return out, failedEntries(out, err, func(o *sqs.SendMessageBatchOutput) []types.BatchResultErrorEntry { return o.Failed },
			entryError("empty", "InvalidParameterValue", "The request must contain the parameter MessageBody."))
	}},
	{"send a batch with repeated ids", "BatchEntryIdsNotDistinct", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		e := sendEntries(2)
		e[1].Id = e[0].Id
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(jobsURL), Entries: e})
	}},
	{"send an empty batch", "EmptyBatchRequest", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(jobsURL), Entries: []types.SendMessageBatchRequestEntry{}})
	}},
	{"send a batch of 11", "TooManyEntriesInBatchRequest", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(jobsURL), Entries: sendEntries(11)})
	}},
	{"send a batch with a bad id", "InvalidBatchEntryId", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		e := sendEntries(1)
		e[0].Id = aws.String("a b")
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(jobsURL), Entries: e})
	}},
	{"send a batch with an entry missing its body", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		e := sendEntries(2)
		e[1].MessageBody = nil
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(jobsURL), Entries: e})
	}},
	// FIFO queues.
	{"send to a FIFO queue", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("first"),
			MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d1")})
		if err == nil {
			s.fifoSentID = aws.ToString(out.MessageId)
		}
		return out, err
	}},
	{"send a duplicate to a FIFO queue within the deduplication window", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("first again"),
			MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d1")})
		return out, sameMessageID(out, err, s.fifoSentID)
	}},
	{"send to a FIFO queue without a group", "MissingParameter", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("x"), MessageDeduplicationId: aws.String("d2")})
	}},
	{"send to a FIFO queue without a deduplication id", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("x"), MessageGroupId: aws.String("g1")})
	}},
	{"send to a FIFO queue with a delay", "InvalidParameterValue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("x"),
			MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d3"), DelaySeconds: 5})
	}},
	{"send a FIFO batch", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(fifoURL), Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("a"), MessageBody: aws.String("second"), MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d4")},
			{Id: aws.String("b"), MessageBody: aws.String("other"), MessageGroupId: aws.String("g2"), MessageDeduplicationId: aws.String("d5")},
		}})
	}},
	{"send a FIFO batch, one entry without a group", "MessageGroupId", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(fifoURL), Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("a"), MessageBody: aws.String("third"), MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d6")},
			{Id: aws.String("c"), MessageBody: aws.String("lost"), MessageDeduplicationId: aws.String("d7")},
		}})
	}},
	{"receive from a FIFO queue", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recvFIFO(ctx, d, s, &sqs.ReceiveMessageInput{MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}, ReceiveRequestAttemptId: aws.String("attempt-1")})
	}},
	{"receive again from a FIFO queue with the same attempt id: same messages, same handles", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(fifoURL), MaxNumberOfMessages: 10, ReceiveRequestAttemptId: aws.String("attempt-1")})
		if err != nil {
			return out, err
		}
		return out, sameHandles(out, s.fifo)
	}},
	{"receive from a FIFO queue with an attempt id of 129 characters", "Reason: ReceiveRequestAttemptId can only include alphanumeric and punctuation characters. 1 to 128 in length.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recvFIFO(ctx, d, s, &sqs.ReceiveMessageInput{ReceiveRequestAttemptId: aws.String(strings.Repeat("a", 129))})
	}},
	// Receiving, visibility, deleting.
	{"receive with a long poll on messages that exist", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), MaxNumberOfMessages: 10, WaitTimeSeconds: 20,
			MessageAttributeNames: []string{"All"}, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	}},
	{"receive some attributes", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(5 * time.Second) // the delayed message becomes visible
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), MessageAttributeNames: []string{"s", "b"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SentTimestamp", "ApproximateReceiveCount"}})
	}},
	{"receive with WaitTimeSeconds 21", "WaitTimeSeconds", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), WaitTimeSeconds: 21})
	}},
	{"receive with MaxNumberOfMessages 11", "MaxNumberOfMessages", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), MaxNumberOfMessages: 11})
	}},
	{"receive with VisibilityTimeout -1", "VisibilityTimeout", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), VisibilityTimeout: -1})
	}},
	{"receive from a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(missingURL)})
	}},
	{"receive without a queue", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recv(ctx, d, s, nil)
	}},
	{"change visibility to 0", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(jobsURL), ReceiptHandle: s.handle(0), VisibilityTimeout: 0})
	}},
	{"change visibility with a bad handle", "ReceiptHandleIsInvalid", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(jobsURL), ReceiptHandle: aws.String(badHandle), VisibilityTimeout: 10})
	}},
	{"change visibility beyond 12 hours", "VisibilityTimeout", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(jobsURL), ReceiptHandle: s.handle(1), VisibilityTimeout: 50000})
	}},
	{"change visibility without a handle", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(jobsURL)})
	}},
	{"change visibility in a batch, one bad handle", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(jobsURL),
			Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
				{Id: aws.String("a"), ReceiptHandle: s.handle(1), VisibilityTimeout: 60},
				{Id: aws.String("b"), ReceiptHandle: aws.String(badHandle), VisibilityTimeout: 60},
			}})
	}},
	{"change visibility in an empty batch", "EmptyBatchRequest", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(jobsURL), Entries: []types.ChangeMessageVisibilityBatchRequestEntry{}})
	}},
	{"delete", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(jobsURL), ReceiptHandle: s.handle(2)})
	}},
	{"change visibility of a deleted message", "Reason: Message does not exist or is not available for visibility timeout change.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(jobsURL), ReceiptHandle: s.handle(2), VisibilityTimeout: 10})
	}},
	{"change visibility in a batch: a deleted message and a bad handle fail with ReceiptHandleIsInvalid", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(jobsURL),
			Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
				{Id: aws.String("deleted"), ReceiptHandle: s.handle(2), VisibilityTimeout: 10},
				{Id: aws.String("bad"), ReceiptHandle: aws.String(badHandle), VisibilityTimeout: 10},
				{Id: aws.String("negative"), ReceiptHandle: s.handle(1), VisibilityTimeout: -1},
			}})
		return out, failedEntries(out, err, func(o *sqs.ChangeMessageVisibilityBatchOutput) []types.BatchResultErrorEntry { return o.Failed },
			entryError("deleted", "ReceiptHandleIsInvalid", "Message does not exist or is not available for visibility timeout change"),
			entryError("bad", "ReceiptHandleIsInvalid", `The input receipt handle "`+badHandle+`" is not a valid receipt handle.`),
			entryError("negative", "InvalidParameterValue", "Value -1 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided."))
	}},
	{"delete in a batch: a deleted message succeeds, a bad handle fails with ReceiptHandleIsInvalid", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(jobsURL),
			Entries: []types.DeleteMessageBatchRequestEntry{
				{Id: aws.String("deleted"), ReceiptHandle: s.handle(2)},
				{Id: aws.String("bad"), ReceiptHandle: aws.String(badHandle)},
			}})
		return out, failedEntries(out, err, func(o *sqs.DeleteMessageBatchOutput) []types.BatchResultErrorEntry { return o.Failed },
			entryError("bad", "ReceiptHandleIsInvalid", `The input receipt handle "`+badHandle+`" is not a valid receipt handle.`))
	}},
	{"delete with a bad handle", "ReceiptHandleIsInvalid", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(jobsURL), ReceiptHandle: aws.String(badHandle)})
	}},
	{"delete from a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(missingURL), ReceiptHandle: s.handle(2)})
	}},
	{"delete in a batch, one bad handle", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(jobsURL),
			Entries: []types.DeleteMessageBatchRequestEntry{
				{Id: aws.String("a"), ReceiptHandle: s.handle(3)},
				{Id: aws.String("b"), ReceiptHandle: aws.String(badHandle)},
			}})
	}},
	{"delete in a batch, an entry without a handle", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(jobsURL),
			Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String("a")}}})
	}},
	// Time, redrive and long polls.
	{"counts", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(jobsURL),
			AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"}})
	}},
	{"receive again after the visibility timeout", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(61 * time.Second)
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
	}},
	{"receive after maxReceiveCount moves to the DLQ", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(61 * time.Second)
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), MaxNumberOfMessages: 10})
	}},
	{"receive from the DLQ", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlqURL), MaxNumberOfMessages: 10,
			MessageAttributeNames: []string{"All"}, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	}},
	{"list dead-letter source queues", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlqURL)})
	}},
	{"list dead-letter source queues page by page", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlqURL), MaxResults: aws.Int32(1)})
	}},
	{"list dead-letter source queues of a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(missingURL)})
	}},
	{"long poll that times out", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return parked(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), WaitTimeSeconds: 3}, func() { d.f.Advance(3 * time.Second) })
	}},
	{"long poll woken by a send", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return parked(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), WaitTimeSeconds: 20}, func() {
			d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("wake up")})
		})
	}},
	{"receive with a cancelled context", "context canceled", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return recv(ctx, d, s, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL)})
	}},
	// Purge, move tasks, delete.
	{"purge", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(jobsURL)})
	}},
	{"purge again within 60 seconds", "PurgeQueueInProgress", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(jobsURL)})
	}},
	{"start a move task at 1 message per second", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(30 * time.Second) // the messages received from the DLQ are visible again
		out, err := d.api.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
		if err == nil {
			s.taskHandle = aws.ToString(out.TaskHandle)
		}
		return out, err
	}},
	{"start a second move task while one runs", "InvalidParameterValue: There is already a task running.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqARN)})
	}},
	{"start a move task from a queue that is no dead-letter queue", "InvalidParameterValue: Source queue must be configured as a Dead Letter Queue.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(jobsARN)})
	}},
	{"start a move task without a source", "missing required field", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{})
	}},
	{"list move tasks", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(2 * time.Second) // two messages moved
		return d.api.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqARN)})
	}},
	{"list move tasks of an unknown source", "ResourceNotFoundException", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(missingARN)})
	}},
	{"list move tasks of a malformed ARN", "InvalidParameterValue: You must use this format to specify the SourceArn", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String("arn:aws:sqs:dlq")})
	}},
	{"list move tasks with MaxResults 11", "InvalidParameterValue: Value 11 for parameter MaxResults is invalid.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqARN), MaxResults: aws.Int32(11)})
	}},
	{"cancel the move task", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(s.taskHandle)})
	}},
	{"cancel the move task again", "Reason: Only tasks with status RUNNING can be cancelled.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(s.taskHandle)})
	}},
	{"list move tasks after the cancel", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(2 * time.Second) // a cancelled task moves nothing more
		return d.api.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqARN), MaxResults: aws.Int32(10)})
	}},
	{"cancel a move task with a handle that is no task's", "InvalidParameterValue: Value for parameter TaskHandle is invalid.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String("bm90LWEtdGFzaw==")}) // "not-a-task"
	}},
	{"cancel a move task that does not exist", "ResourceNotFoundException: Task does not exist.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		handle := base64.StdEncoding.EncodeToString([]byte(`{"taskId":"00000000-0000-4000-8000-000000000000","sourceArn":"` + dlqARN + `"}`))
		return d.api.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(handle)})
	}},
	{"cancel a move task without a handle", "missing required field, CancelMessageMoveTaskInput.TaskHandle", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{})
	}},
	{"delete queue", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(jobsURL)})
	}},
	{"re-create within 60 seconds", "QueueDeletedRecently", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	}},
	{"re-create after 60 seconds", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(60 * time.Second)
		return d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	}},
	{"delete a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(missingURL)})
	}},
	{"purge a missing queue", "NonExistentQueue", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(missingURL)})
	}},
	// FIFO over time: attempt ids that can no longer be retried, expired handles, the
	// deduplication window. orders.fifo holds first and second (g1) and other (g2), visible
	// again since their visibility timeout ran out long ago.
	{"receive from a FIFO queue with a new attempt id", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return recvFIFO(ctx, d, s, &sqs.ReceiveMessageInput{MaxNumberOfMessages: 10, ReceiveRequestAttemptId: aws.String("attempt-2"),
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount", "SequenceNumber"}})
	}},
	{"delete the head of a FIFO group", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(fifoURL), ReceiptHandle: s.fifoHandle(0)})
	}},
	{"retry a receive after one of its messages was deleted",
		"InvalidParameterValue: Value attempt-2 for parameter ReceiveRequestAttemptId is invalid. Reason: The receiveRequestAttemptId is not valid anymore since the receive call is not retryable.",
		func(ctx context.Context, d *door, s *corpusState) (any, error) {
			return d.api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(fifoURL), MaxNumberOfMessages: 10, ReceiveRequestAttemptId: aws.String("attempt-2")})
		}},
	{"delete with an expired FIFO handle", "Reason: The receipt handle has expired.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(31 * time.Second) // past the queue's visibility timeout of 30 seconds
		return d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(fifoURL), ReceiptHandle: s.fifoHandle(1)})
	}},
	{"change visibility with an expired FIFO handle", "Reason: The receipt handle has expired.", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		return d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(fifoURL), ReceiptHandle: s.fifoHandle(2), VisibilityTimeout: 10})
	}},
	{"delete in a batch with an expired FIFO handle", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(fifoURL),
			Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String("a"), ReceiptHandle: s.fifoHandle(2)}}})
		if err == nil && (len(out.Failed) != 1 || aws.ToString(out.Failed[0].Code) != "InvalidParameterValue") {
			return out, fmt.Errorf("want one entry failed with InvalidParameterValue, got %+v", out.Failed)
		}
		return out, err
	}},
	{"send to a FIFO queue with a new deduplication id", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		out, err := d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("fourth"),
			MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d9")})
		if err == nil {
			s.fifoSentID = aws.ToString(out.MessageId)
		}
		return out, err
	}},
	{"send a duplicate 4 minutes later, within the window", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(4 * time.Minute)
		out, err := d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("fourth again"),
			MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d9")})
		return out, sameMessageID(out, err, s.fifoSentID)
	}},
	{"send the duplicate after the 5-minute window: a new message", "ok", func(ctx context.Context, d *door, s *corpusState) (any, error) {
		d.f.Advance(61 * time.Second)
		out, err := d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("fourth, later"),
			MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("d9")})
		if err == nil && aws.ToString(out.MessageId) == s.fifoSentID {
			return out, fmt.Errorf("a send after the window was taken for a duplicate of %s", s.fifoSentID)
		}
		return out, err
	}},
}

// entryError is a batch entry's failure as SQS reports it: every per-entry failure is the
// sender's fault.
func entryError(id, code, message string) types.BatchResultErrorEntry {
	return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(code), Message: aws.String(message), SenderFault: true}
}

// failedEntries reports, as an error, a batch call whose Failed list is not want.
func failedEntries[O any](out *O, err error, failed func(*O) []types.BatchResultErrorEntry, want ...types.BatchResultErrorEntry) error {
	if err != nil {
		return err
	}
	if got := failed(out); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("Failed is %s, want %s", describe(got, nil), describe(want, nil))
	}
	return nil
}

var requestIDPattern = regexp.MustCompile(`RequestID: [0-9a-f-]{36}`)

// describe renders a call's result for comparison: the JSON of its output without
// ResultMetadata, or its error's text (request id masked) with the facts callers test on.
func describe(out any, err error) string {
	if err != nil {
		s := "error: " + requestIDPattern.ReplaceAllString(err.Error(), "RequestID: <id>")
		var ae smithy.APIError
		if errors.As(err, &ae) {
			s += fmt.Sprintf("\n  api error %T code=%q fault=%v message=%q", ae, ae.ErrorCode(), ae.ErrorFault(), ae.ErrorMessage())
		}
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			s += fmt.Sprintf("\n  status=%d", re.HTTPStatusCode())
		}
		for _, target := range []error{context.Canceled, context.DeadlineExceeded} {
			if errors.Is(err, target) {
				s += "\n  is " + target.Error()
			}
		}
		var oe *smithy.OperationError
		if !errors.As(err, &oe) {
			s += "\n  not an OperationError"
		}
		return s
	}
	b, jerr := json.Marshal(out)
	if jerr != nil {
		return "unencodable: " + jerr.Error()
	}
	var generic any
	json.Unmarshal(b, &generic)
	dropResultMetadata(generic)
	b, _ = json.MarshalIndent(generic, "  ", "  ")
	return string(b)
}

func dropResultMetadata(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "ResultMetadata")
		for _, x := range v {
			dropResultMetadata(x)
		}
	case []any:
		for _, x := range v {
			dropResultMetadata(x)
		}
	}
}

func runCorpus(t *testing.T, d *door) []string {
	t.Helper()
	ctx := context.Background()
	s := &corpusState{}
	results := make([]string, len(corpus))
	for i, st := range corpus {
		out, err := st.call(ctx, d, s)
		results[i] = describe(out, err)
		switch {
		case st.want == "":
			t.Errorf("%q states no expected outcome", st.name)
		case st.want == "ok" && err != nil:
			t.Errorf("%s: %q failed: %v", d.name, st.name, err)
		case st.want != "ok" && (err == nil || !strings.Contains(err.Error(), st.want)):
			t.Errorf("%s: %q: want an error with %q, got %v", d.name, st.name, st.want, err)
		}
	}
	return results
}

// TestThreeDoorsGiveIdenticalResults runs one corpus of calls, good and bad, through the
// fake's methods, through Client and through Handler (a stock SDK client over HTTPClient, over
// a loopback socket, and in the query protocol), each on a fresh fake, and requires identical
// outputs and identical errors.
func TestThreeDoorsGiveIdenticalResults(t *testing.T) {
	doors := doors(t)
	results := make([][]string, len(doors))
	for i, d := range doors {
		results[i] = runCorpus(t, d)
		for j := range results[i] {
			if d.normalize != nil {
				results[i][j] = d.normalize(results[i][j])
			}
		}
	}
	for i := 1; i < len(doors); i++ {
		for j, st := range corpus {
			if results[i][j] != results[0][j] {
				t.Errorf("step %q: %s and %s differ\n%s:\n  %s\n%s:\n  %s", st.name, doors[0].name, doors[i].name,
					doors[0].name, results[0][j], doors[i].name, results[i][j])
			}
		}
	}
	// Every door, and both protocols of the wire, end in the same state.
	state := func(d *door) string {
		b, err := json.Marshal(d.f.Queues())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, d := range doors[1:] {
		if got, want := state(d), state(doors[0]); got != want {
			t.Errorf("%s and %s end in different states:\n%s\n%s", doors[0].name, d.name, want, got)
		}
	}
	if testing.Verbose() {
		for j, st := range corpus {
			t.Logf("%s\n  %s", st.name, results[0][j])
		}
	}
}

// TestCorpusCoversEveryOperation requires the corpus to call each of the 23 operations at
// least once with an input that succeeds and once with one that fails. It runs the corpus
// through Client with a middleware, first in the stack, that records each call's operation
// and outcome, the SDK's own validation included.
func TestCorpusCoversEveryOperation(t *testing.T) {
	var mu sync.Mutex // the long-poll steps call from two goroutines
	good, bad := map[string]bool{}, map[string]bool{}
	record := middleware.InitializeMiddlewareFunc("corpusCoverage", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleInitialize(ctx, in)
		mu.Lock()
		defer mu.Unlock()
		if op := middleware.GetOperationName(ctx); err == nil {
			good[op] = true
		} else {
			bad[op] = true
		}
		return out, md, err
	})
	f := New()
	d := &door{name: "Client", f: f, api: f.Client(func(o *sqs.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(record, middleware.Before) })
	})}
	ctx := context.Background()
	s := &corpusState{}
	for _, st := range corpus {
		st.call(ctx, d, s)
	}
	api := reflect.TypeFor[sqsAPI]()
	if api.NumMethod() != 23 {
		t.Errorf("sqsAPI has %d operations, SQS 23", api.NumMethod())
	}
	for i := range api.NumMethod() {
		op := api.Method(i).Name
		if !good[op] {
			t.Errorf("%s: no call in the corpus succeeds", op)
		}
		if !bad[op] {
			t.Errorf("%s: no call in the corpus fails", op)
		}
	}
}
