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

const (
	accountB = "222222222222"
	regionEU = "eu-central-1"
)

func TestOneNameInTwoRegionsIsTwoQueues(t *testing.T) {
	ctx := context.Background()
	f := New()
	eu := ActAs(Identity{Region: regionEU})
	us, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	de, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")}, eu)
	require.NoError(t, err)
	assert.Equal(t, "https://sqs.us-east-1.amazonaws.com/123456789012/jobs", *us.QueueUrl)
	assert.Equal(t, "https://sqs.eu-central-1.amazonaws.com/123456789012/jobs", *de.QueueUrl)

	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: de.QueueUrl, MessageBody: aws.String("to eu")}, eu)
	require.NoError(t, err)
	got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: us.QueueUrl})
	require.NoError(t, err)
	assert.Empty(t, got.Messages, "the us-east-1 queue has none of eu-central-1's messages")
	got, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: de.QueueUrl}, eu)
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	assert.Equal(t, "to eu", *got.Messages[0].Body)

	// The queue URL's host is not read, as AWS does not: a us-east-1 caller holding the
	// eu-central-1 URL names the us-east-1 queue of that name.
	attrs, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: de.QueueUrl, AttributeNames: []types.QueueAttributeName{"QueueArn"}})
	require.NoError(t, err)
	assert.Equal(t, "arn:aws:sqs:us-east-1:123456789012:jobs", attrs.Attributes["QueueArn"])
	attrs, err = f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: de.QueueUrl, AttributeNames: []types.QueueAttributeName{"QueueArn"}}, eu)
	require.NoError(t, err)
	assert.Equal(t, "arn:aws:sqs:eu-central-1:123456789012:jobs", attrs.Attributes["QueueArn"])

	list, err := f.ListQueues(ctx, &sqs.ListQueuesInput{}, eu)
	require.NoError(t, err)
	assert.Equal(t, []string{*de.QueueUrl}, list.QueueUrls)
	url, err := f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")}, eu)
	require.NoError(t, err)
	assert.Equal(t, *de.QueueUrl, *url.QueueUrl)
}

func TestAccountsHaveTheirOwnQueues(t *testing.T) {
	ctx := context.Background()
	f := New()
	b := f.Client(ActAs(Identity{AccountID: accountB}))
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("a-only")})
	require.NoError(t, err)
	bq, err := b.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("b-only")})
	require.NoError(t, err)
	assert.Equal(t, "https://sqs.us-east-1.amazonaws.com/222222222222/b-only", *bq.QueueUrl)

	listA, err := f.ListQueues(ctx, &sqs.ListQueuesInput{})
	require.NoError(t, err)
	assert.Equal(t, []string{"https://sqs.us-east-1.amazonaws.com/123456789012/a-only"}, listA.QueueUrls)
	listB, err := b.ListQueues(ctx, &sqs.ListQueuesInput{})
	require.NoError(t, err)
	assert.Equal(t, []string{*bq.QueueUrl}, listB.QueueUrls)

	_, err = b.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("a-only")})
	requireCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")

	infos := f.Queues()
	require.Len(t, infos, 2)
	assert.Equal(t, [2]string{DefaultAccountID, DefaultRegion}, [2]string{infos[0].AccountID, infos[0].Region})
	assert.Equal(t, [2]string{accountB, DefaultRegion}, [2]string{infos[1].AccountID, infos[1].Region})
}

func TestClientOfAnotherRegionAndAccountActsThere(t *testing.T) {
	ctx := context.Background()
	f := New()
	c := f.Client(func(o *sqs.Options) {
		o.Region = "ap-southeast-2"
	}, ActAs(Identity{AccountID: accountB}))
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	assert.Equal(t, "https://sqs.ap-southeast-2.amazonaws.com/222222222222/q", *out.QueueUrl)
	calls := f.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, Caller{Door: DoorClient, AccountID: accountB, Region: "ap-southeast-2",
		PrincipalARN: "arn:aws:iam::222222222222:root", Other: true}, calls[0].Caller)
	assert.Contains(t, calls[0].String(), "[as arn:aws:iam::222222222222:root in ap-southeast-2]")
}

func TestCrossAccountCallWithoutPolicyIsDenied(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("private")})
	require.NoError(t, err)
	b := ActAs(Identity{AccountID: accountB, PrincipalARN: "arn:aws:iam::222222222222:user/bob"})
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, b)
	requireCode(t, err, "AccessDenied")
	_, err = f.Client(b).ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	requireCode(t, err, "AccessDenied")
	// Nothing happened to the queue, and the record shows who was refused.
	info, err := f.Queue("private")
	require.NoError(t, err)
	assert.Empty(t, info.Messages)
	calls := f.Calls()
	assert.Equal(t, "AccessDenied", calls[1].ErrorCode)
	assert.Equal(t, "arn:aws:iam::222222222222:user/bob", calls[1].Caller.PrincipalARN)
	// GetQueueUrl naming the owner tells a caller it does not admit nothing.
	_, err = f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("private"), QueueOwnerAWSAccountId: aws.String(DefaultAccountID)}, b)
	requireCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")
}

func TestDeadLetterQueueMustShareAccountAndRegion(t *testing.T) {
	ctx := context.Background()
	f := New()
	eu := ActAs(Identity{Region: regionEU})
	dlq, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")}, eu)
	require.NoError(t, err)
	_ = dlq
	policy := `{"deadLetterTargetArn":"arn:aws:sqs:eu-central-1:123456789012:dlq","maxReceiveCount":"3"}`
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{"RedrivePolicy": policy}})
	requireCode(t, err, "InvalidParameterValue")
	assert.Len(t, f.Queues(), 1, "nothing was created")
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{"RedrivePolicy": policy}}, eu)
	require.NoError(t, err)
	srcs, err := f.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: dlq.QueueUrl}, eu)
	require.NoError(t, err)
	assert.Equal(t, []string{"https://sqs.eu-central-1.amazonaws.com/123456789012/src"}, srcs.QueueUrls)
}

func TestDeletedNameCooldownIsPerSpace(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
	require.NoError(t, err)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	requireCode(t, err, "AWS.SimpleQueueService.QueueDeletedRecently")
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")}, ActAs(Identity{AccountID: accountB}))
	assert.NoError(t, err, "another account's name space has no cooldown")
}

func TestServerURLsNameTheRegionOutsideTheFakesOwn(t *testing.T) {
	ctx := context.Background()
	f := New(WithEndpoint("http://127.0.0.1:4566"))
	home, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	eu := ActAs(Identity{Region: regionEU})
	away, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")}, eu)
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:4566/123456789012/q", *home.QueueUrl)
	assert.Equal(t, "http://127.0.0.1:4566/queue/eu-central-1/123456789012/q", *away.QueueUrl)
	// The region in the path names the queue whoever uses the URL.
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: away.QueueUrl, MessageBody: aws.String("x")})
	require.NoError(t, err)
	info, err := f.Queue("arn:aws:sqs:eu-central-1:123456789012:q")
	require.NoError(t, err)
	assert.Len(t, info.Messages, 1)
	homeInfo, _ := f.Queue("q")
	assert.Empty(t, homeInfo.Messages)
}

func TestMoveTasksDoNotCrossAccounts(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	require.NoError(t, err)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":"3"}`}})
	require.NoError(t, err)
	_ = dlq
	b := ActAs(Identity{AccountID: accountB})
	_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:123456789012:dlq")}, b)
	requireCode(t, err, "AccessDenied")
	_, err = f.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:123456789012:dlq")}, b)
	requireCode(t, err, "AccessDenied")
	_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:123456789012:dlq")})
	require.NoError(t, err)
}

func TestTimelineNamesTheCallerWhoActedAsAnotherIdentity(t *testing.T) {
	ctx := context.Background()
	f := New()
	alice := ActAs(Identity{PrincipalARN: "arn:aws:iam::123456789012:user/alice"})
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	sent, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	require.NoError(t, err)
	got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}, alice)
	require.NoError(t, err)
	_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle}, alice)
	require.NoError(t, err)
	var by []string
	for _, e := range f.Timeline(*sent.MessageId).Events {
		by = append(by, e.Kind.String()+":"+e.By)
	}
	assert.Equal(t, []string{"sent:", "received:arn:aws:iam::123456789012:user/alice", "deleted:arn:aws:iam::123456789012:user/alice"}, by)
	assert.Contains(t, f.Timeline(*sent.MessageId).Events[2].String(), "deleted in q by arn:aws:iam::123456789012:user/alice")
}

func TestSenderIdIsTheSendingAccount(t *testing.T) {
	ctx := context.Background()
	f := New()
	for _, tc := range []struct {
		name string
		as   Identity
		want string
	}{
		{"the fake's own root user", Identity{}, DefaultSenderID},
		{"the fake's own root user in another region", Identity{Region: regionEU}, DefaultSenderID},
		{"another account", Identity{AccountID: accountB}, accountB},
		{"a user of another account", Identity{AccountID: accountB, PrincipalARN: "arn:aws:iam::222222222222:user/bob"}, accountB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := ActAs(tc.as)
			q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")}, as)
			require.NoError(t, err)
			_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, as)
			require.NoError(t, err)
			got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SenderId"}}, as)
			require.NoError(t, err)
			require.Len(t, got.Messages, 1)
			assert.Equal(t, map[string]string{"SenderId": tc.want}, got.Messages[0].Attributes)
		})
	}
}

func TestMoveTaskDestinationMustAdmitTheCallerToSend(t *testing.T) {
	ctx := context.Background()
	f := New()
	b := ActAs(Identity{AccountID: accountB})
	victim, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("victim")}, b)
	require.NoError(t, err)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	require.NoError(t, err)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":"3"}`}})
	require.NoError(t, err)
	in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:us-east-1:123456789012:dlq"),
		DestinationArn: aws.String("arn:aws:sqs:us-east-1:222222222222:victim")}
	_, err = f.StartMessageMoveTask(ctx, in)
	requireCode(t, err, "AccessDenied")
	_, err = f.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: victim.QueueUrl, Label: aws.String("redrive"),
		AWSAccountIds: []string{DefaultAccountID}, Actions: []string{"SendMessage"}}, b)
	require.NoError(t, err)
	_, err = f.StartMessageMoveTask(ctx, in)
	require.NoError(t, err, "a destination whose policy lets the caller send takes the messages")
}

func TestInspectionFindsTheQueueEveryHandedOutURLNames(t *testing.T) {
	ctx := context.Background()
	for _, endpoint := range []string{"", "http://127.0.0.1:9324", "http://127.0.0.1:9324/sqs"} {
		var opts []Option
		if endpoint != "" {
			opts = append(opts, WithEndpoint(endpoint))
		}
		f := New(opts...)
		eu := ActAs(Identity{Region: regionEU})
		home, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		require.NoError(t, err)
		away, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")}, eu)
		require.NoError(t, err)
		for url, arn := range map[string]string{
			*home.QueueUrl: "arn:aws:sqs:us-east-1:123456789012:jobs",
			*away.QueueUrl: "arn:aws:sqs:eu-central-1:123456789012:jobs",
		} {
			info, err := f.Queue(url)
			require.NoError(t, err, url)
			assert.Equal(t, arn, info.Arn, url)
		}
		if endpoint != "" {
			// The server's URLs name the region in the path: the operations read it too.
			out, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: away.QueueUrl,
				AttributeNames: []types.QueueAttributeName{"QueueArn"}})
			require.NoError(t, err)
			assert.Equal(t, "arn:aws:sqs:eu-central-1:123456789012:jobs", out.Attributes["QueueArn"], *away.QueueUrl)
		}
	}
}

func TestActAsRefusesAnIdentityItCannotBe(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		id   Identity
	}{
		{"an account that is not 12 digits", Identity{AccountID: "22222222222"}},
		{"a region without a region's form", Identity{Region: "Europe"}},
		{"a principal of another account", Identity{AccountID: accountB, PrincipalARN: "arn:aws:iam::333333333333:user/eve"}},
		{"a principal that is no principal ARN", Identity{PrincipalARN: "bob"}},
		{"an org id without its form", Identity{OrgID: "acme"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New()
			q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
			require.NoError(t, err)
			for door, call := range map[string]func() error{
				"methods": func() error {
					_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, ActAs(tc.id))
					return err
				},
				"client": func() error {
					_, err := f.Client(ActAs(tc.id)).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
					return err
				},
			} {
				var oe *OptionError
				require.ErrorAs(t, call(), &oe, door)
				assert.Equal(t, "ActAs", oe.Option, door)
			}
			info, _ := f.Queue("q")
			assert.Empty(t, info.Messages, "nothing was sent")
		})
	}
}

func TestActAsWithAPrincipalActsInItsAccount(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("private")})
	require.NoError(t, err)
	bob := ActAs(Identity{PrincipalARN: "arn:aws:iam::222222222222:user/bob"})
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, bob)
	requireCode(t, err, "AccessDenied")
	assert.Equal(t, accountB, f.Calls()[1].Caller.AccountID)
}

func TestEndpointPathsDoNotNameARegion(t *testing.T) {
	ctx := context.Background()
	for _, endpoint := range []string{"http://127.0.0.1:9324/queue/sqs", "http://127.0.0.1:9324/sqs", "http://127.0.0.1:9324/queue"} {
		f := New(WithEndpoint(endpoint))
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
		require.NoError(t, err)
		_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
		require.NoError(t, err, *q.QueueUrl)
		info, err := f.Queue(*q.QueueUrl)
		require.NoError(t, err, *q.QueueUrl)
		assert.Len(t, info.Messages, 1, *q.QueueUrl)
	}
}
