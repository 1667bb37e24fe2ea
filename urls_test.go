package sqsfake

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQueueURLsAndARNsNameTheFakesRegionAndAccount(t *testing.T) {
	cases := []struct {
		desc            string
		opts            []Option
		region, account string
		url, arn        string
	}{
		{"defaults", nil, "us-east-1", "123456789012",
			"https://sqs.us-east-1.amazonaws.com/123456789012/jobs", "arn:aws:sqs:us-east-1:123456789012:jobs"},
		{"WithRegion", []Option{WithRegion("eu-west-1")}, "eu-west-1", "123456789012",
			"https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", "arn:aws:sqs:eu-west-1:123456789012:jobs"},
		{"WithAccountID", []Option{WithAccountID("111122223333")}, "us-east-1", "111122223333",
			"https://sqs.us-east-1.amazonaws.com/111122223333/jobs", "arn:aws:sqs:us-east-1:111122223333:jobs"},
		{"both", []Option{WithAccountID("111122223333"), WithRegion("ap-southeast-2")}, "ap-southeast-2", "111122223333",
			"https://sqs.ap-southeast-2.amazonaws.com/111122223333/jobs", "arn:aws:sqs:ap-southeast-2:111122223333:jobs"},
		{"China partition", []Option{WithRegion("cn-north-1")}, "cn-north-1", "123456789012",
			"https://sqs.cn-north-1.amazonaws.com.cn/123456789012/jobs", "arn:aws-cn:sqs:cn-north-1:123456789012:jobs"},
		{"GovCloud partition", []Option{WithRegion("us-gov-west-1")}, "us-gov-west-1", "123456789012",
			"https://sqs.us-gov-west-1.amazonaws.com/123456789012/jobs", "arn:aws-us-gov:sqs:us-gov-west-1:123456789012:jobs"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			ctx := context.Background()
			f := New(tc.opts...)
			assert.Equal(t, tc.region, f.region)
			assert.Equal(t, tc.account, f.account)
			assert.Equal(t, tc.region, f.Options().Region)

			u := qlCreate(t, f, "jobs", nil)
			assert.Equal(t, tc.url, u)
			got, err := f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")})
			require.NoError(t, err)
			assert.Equal(t, tc.url, aws.ToString(got.QueueUrl))
			got, err = f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs"), QueueOwnerAWSAccountId: aws.String(tc.account)})
			require.NoError(t, err)
			assert.Equal(t, tc.url, aws.ToString(got.QueueUrl))
			assert.Equal(t, &sqs.ListQueuesOutput{QueueUrls: []string{tc.url}}, qlListAll(t, f, &sqs.ListQueuesInput{}))
			assert.Equal(t, map[string]string{"QueueArn": tc.arn}, qlGetAttrs(t, f, u, types.QueueAttributeNameQueueArn).Attributes)
		})
	}
}

func TestQueueUrlAcceptsBareNamesPathsAndLegacyHosts(t *testing.T) {
	cases := []struct {
		desc string
		opts []Option
		url  string
	}{
		{"the URL CreateQueue returned", nil, "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"},
		{"bare queue name", nil, "jobs"},
		{"account and name", nil, "123456789012/jobs"},
		{"legacy global host", nil, "https://queue.amazonaws.com/123456789012/jobs"},
		{"legacy regional host", nil, "https://us-east-1.queue.amazonaws.com/123456789012/jobs"},
		{"plain HTTP on a local endpoint", nil, "http://localhost:4566/123456789012/jobs"},
		{"legacy regional host of another region's fake", []Option{WithRegion("eu-west-1"), WithAccountID("111122223333")}, "https://eu-west-1.queue.amazonaws.com/111122223333/jobs"},
		{"legacy global host of another account's fake", []Option{WithAccountID("111122223333")}, "https://queue.amazonaws.com/111122223333/jobs"},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			ctx := context.Background()
			f := New(tc.opts...)
			canonical := qlCreate(t, f, "jobs", nil)
			u := aws.String(tc.url)

			got := qlGetAttrs(t, f, tc.url, types.QueueAttributeNameQueueArn)
			assert.Equal(t, qlGetAttrs(t, f, canonical, types.QueueAttributeNameQueueArn), got)
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: u, MessageBody: aws.String("hi")})
			require.NoError(t, err)
			msgs := qlReceive(t, f, canonical, 1)
			require.Len(t, msgs, 1, "the message went to the queue the URL names")
			_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: u, ReceiptHandle: msgs[0].ReceiptHandle})
			require.NoError(t, err)
			qlTag(t, f, tc.url, map[string]string{"via": "alias"})
			assert.Equal(t, map[string]string{"via": "alias"}, qlTags(t, f, canonical))
			_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: u})
			require.NoError(t, err)
			assert.Equal(t, &sqs.ListQueuesOutput{}, qlListAll(t, f, &sqs.ListQueuesInput{}))
		})
	}
}

func TestQueueUrlOfAnotherAccountOrAMalformedOneFailsWithQueueDoesNotExist(t *testing.T) {
	cases := []struct {
		desc string
		opts []Option
		url  string
	}{
		{"another account", nil, "https://sqs.us-east-1.amazonaws.com/210987654321/jobs"},
		{"another account on the legacy global host", nil, "https://queue.amazonaws.com/210987654321/jobs"},
		{"another account on a legacy regional host", nil, "https://us-east-1.queue.amazonaws.com/210987654321/jobs"},
		{"another account as a path", nil, "210987654321/jobs"},
		{"the default account on a fake with another", []Option{WithAccountID("111122223333")}, "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"},
		{"name in another case", nil, "https://sqs.us-east-1.amazonaws.com/123456789012/Jobs"},
		{"bare name in another case", nil, "JOBS"},
		{"no queue name", nil, "https://sqs.us-east-1.amazonaws.com/123456789012/"},
		{"host only", nil, "https://sqs.us-east-1.amazonaws.com"},
		{"empty", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			ctx := context.Background()
			f := New(tc.opts...)
			qlCreate(t, f, "jobs", nil)
			before := qlState(t, f)
			_, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(tc.url), AttributeNames: []types.QueueAttributeName{"All"}})
			qlRequireError(t, err, "GetQueueAttributes", qlQueueDoesNotExist())
			_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(tc.url), MessageBody: aws.String("hi")})
			qlRequireError(t, err, "SendMessage", qlQueueDoesNotExist())
			_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(tc.url)})
			qlRequireError(t, err, "DeleteQueue", qlQueueDoesNotExist())
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

// qlQueueURLOperations calls every operation that takes a QueueUrl with u and otherwise
// valid input, and returns each operation's error by name.
func qlQueueURLOperations(f *Fake, u string) map[string]error {
	ctx := context.Background()
	url := aws.String(u)
	handle := aws.String("AQEBnotarealhandle")
	errs := map[string]error{}
	_, errs["AddPermission"] = f.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: url, Label: aws.String("L"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}})
	_, errs["ChangeMessageVisibility"] = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: 10})
	_, errs["ChangeMessageVisibilityBatch"] = f.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url,
		Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: aws.String("a"), ReceiptHandle: handle}}})
	_, errs["DeleteMessage"] = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: handle})
	_, errs["DeleteMessageBatch"] = f.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url,
		Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String("a"), ReceiptHandle: handle}}})
	_, errs["GetQueueAttributes"] = f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{"All"}})
	_, errs["ListDeadLetterSourceQueues"] = f.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: url})
	_, errs["ListQueueTags"] = f.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: url})
	_, errs["PurgeQueue"] = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: url})
	_, errs["ReceiveMessage"] = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 20})
	_, errs["RemovePermission"] = f.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: url, Label: aws.String("L")})
	_, errs["SendMessage"] = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("hi")})
	_, errs["SendMessageBatch"] = f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: url,
		Entries: []types.SendMessageBatchRequestEntry{{Id: aws.String("a"), MessageBody: aws.String("hi")}}})
	_, errs["SetQueueAttributes"] = f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: url, Attributes: map[string]string{"VisibilityTimeout": "60"}})
	_, errs["TagQueue"] = f.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: url, Tags: map[string]string{"a": "b"}})
	_, errs["UntagQueue"] = f.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: url, TagKeys: []string{"a"}})
	_, errs["DeleteQueue"] = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: url})
	return errs
}

func TestEveryQueueOperationFailsWithQueueDoesNotExistForAnUnknownQueue(t *testing.T) {
	for _, u := range []string{
		qlURL("missing"),
		"missing",
		"https://sqs.us-east-1.amazonaws.com/210987654321/jobs", // a queue of that name exists in the fake's own account
		qlURL("deleted"),
	} {
		t.Run(u, func(t *testing.T) {
			f := New()
			qlOtherQueue(t, f)
			qlCreate(t, f, "jobs", nil)
			gone := qlCreate(t, f, "deleted", nil)
			_, err := f.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(gone)})
			require.NoError(t, err)
			before := qlState(t, f)
			errs := qlQueueURLOperations(f, u)
			assert.Len(t, errs, 17)
			for op, err := range errs {
				t.Run(op, func(t *testing.T) { qlRequireError(t, err, op, qlQueueDoesNotExist()) })
			}
			assert.Equal(t, before, qlState(t, f))
			assert.Equal(t, 0, f.Pollers(), "no receive waits on a queue that does not exist")
		})
	}
}

func TestAQueueURLNamesTheQueueOfItsNameNowAfterDeleteAndReset(t *testing.T) {
	ctx := context.Background()
	f := New(WithPurgeCooldown(0))
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("old")})
	require.NoError(t, err)
	_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")

	f.Reset()
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("new")})
	require.NoError(t, err)
	info, _ := f.Queue("q")
	require.Len(t, info.Messages, 1)
	assert.Equal(t, "new", info.Messages[0].Body)
}

func TestParseQueueURLReadsEveryFormAQueueURLTakes(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want queueRef
		ok   bool
	}{
		{"jobs", queueRef{name: "jobs"}, true},
		{"123456789012/jobs", queueRef{account: "123456789012", name: "jobs"}, true},
		{"https://sqs.eu-west-1.amazonaws.com/123456789012/jobs", queueRef{account: "123456789012", name: "jobs", hostRegion: "eu-west-1"}, true},
		{"https://sqs.cn-north-1.amazonaws.com.cn/123456789012/jobs", queueRef{account: "123456789012", name: "jobs", hostRegion: "cn-north-1"}, true},
		{"https://eu-west-1.queue.amazonaws.com/123456789012/jobs", queueRef{account: "123456789012", name: "jobs", hostRegion: "eu-west-1"}, true},
		{"https://queue.amazonaws.com/123456789012/jobs/", queueRef{account: "123456789012", name: "jobs"}, true},
		{"http://127.0.0.1:9324/queue/eu-west-1/123456789012/jobs", queueRef{region: "eu-west-1", account: "123456789012", name: "jobs"}, true},
		{"http://127.0.0.1:9324/sqs/queue/eu-west-1/123456789012/jobs", queueRef{region: "eu-west-1", account: "123456789012", name: "jobs"}, true},
		{"http://127.0.0.1:9324/queue/sqs/123456789012/jobs", queueRef{account: "123456789012", name: "jobs"}, true},
		{"http://127.0.0.1:9324", queueRef{}, false},
		{"/jobs", queueRef{}, false},
		{"", queueRef{}, false},
	} {
		got, ok := parseQueueURL(tc.url)
		assert.Equal(t, tc.ok, ok, tc.url)
		if tc.ok {
			assert.Equal(t, tc.want, got, tc.url)
		}
	}
}
