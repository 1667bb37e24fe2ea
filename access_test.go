package sqsfake

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ownerQueueARN = "arn:aws:sqs:us-east-1:123456789012:q"

// sendAs sends a message to url as the identity as (nil: the fake's own).
func sendAs(ctx context.Context, f *Fake, url *string, as func(*sqs.Options)) error {
	var optFns []func(*sqs.Options)
	if as != nil {
		optFns = append(optFns, as)
	}
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("x")}, optFns...)
	return err
}

func TestQueuePolicyDecidesWhoMayAct(t *testing.T) {
	bob := Identity{AccountID: accountB, PrincipalARN: "arn:aws:iam::222222222222:user/bob"}
	worker := Identity{PrincipalARN: "arn:aws:sts::123456789012:assumed-role/reporting/job-7"}
	allowB := func(actions string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":` + actions + `,"Resource":"` + ownerQueueARN + `"}]}`
	}
	sendBatch := func(ctx context.Context, f *Fake, url *string, as func(*sqs.Options)) error {
		_, err := f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: url, Entries: []types.SendMessageBatchRequestEntry{{Id: aws.String("1"), MessageBody: aws.String("x")}}}, as)
		return err
	}
	receive := func(ctx context.Context, f *Fake, url *string, as func(*sqs.Options)) error {
		_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url}, as)
		return err
	}
	setAttrs := func(ctx context.Context, f *Fake, url *string, as func(*sqs.Options)) error {
		_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: url, Attributes: map[string]string{"DelaySeconds": "1"}}, as)
		return err
	}
	deleteQueue := func(ctx context.Context, f *Fake, url *string, as func(*sqs.Options)) error {
		_, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: url}, as)
		return err
	}
	implicit := "User: arn:aws:iam::222222222222:user/bob is not authorized to perform: sqs:sendmessage on resource: " + ownerQueueARN +
		" because no resource-based policy allows the sqs:sendmessage action"
	for _, tc := range []struct {
		name    string
		policy  string // "" = none
		as      Identity
		call    func(context.Context, *Fake, *string, func(*sqs.Options)) error
		message string // "" = allowed; else the AccessDenied message
	}{
		{"the owner acts without a policy", "", Identity{}, sendAs, ""},
		{"another account is refused without a policy", "", bob, sendAs, implicit},
		{"another account acts where the policy allows it", allowB(`"sqs:SendMessage"`), bob, sendAs, ""},
		{"actions are case-insensitive", allowB(`"SQS:sendmessage"`), bob, sendAs, ""},
		{"a wildcard action allows", allowB(`"sqs:Send*"`), bob, sendAs, ""},
		{"an action not allowed is refused", allowB(`"sqs:ReceiveMessage"`), bob, sendAs, implicit},
		{"a batch needs its single action", allowB(`"sqs:SendMessage"`), bob, sendBatch, ""},
		{"a batch action name grants nothing", allowB(`"sqs:SendMessageBatch"`), bob, sendBatch, implicit},
		{"sqs:* does not share SetQueueAttributes", allowB(`"sqs:*"`), bob, setAttrs,
			"User: arn:aws:iam::222222222222:user/bob is not authorized to perform: sqs:setqueueattributes on resource: " + ownerQueueARN +
				" because no resource-based policy allows the sqs:setqueueattributes action"},
		{"sqs:* does not share DeleteQueue", allowB(`"sqs:*"`), bob, deleteQueue,
			"User: arn:aws:iam::222222222222:user/bob is not authorized to perform: sqs:deletequeue on resource: " + ownerQueueARN +
				" because no resource-based policy allows the sqs:deletequeue action"},
		{"sqs:* shares ReceiveMessage", allowB(`"sqs:*"`), bob, receive, ""},
		{"an explicit deny refuses the owner", `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:SendMessage","Resource":"*"}]}`, Identity{}, sendAs,
			"User: arn:aws:iam::123456789012:root is not authorized to perform: sqs:sendmessage on resource: " + ownerQueueARN +
				" with an explicit deny in a resource-based policy"},
		{"an explicit deny wins over an allow", `{"Statement":[
			{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:root"},"Action":"sqs:*","Resource":"*"},
			{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::222222222222:user/bob"},"Action":"sqs:SendMessage","Resource":"*"}]}`, bob, sendAs,
			"User: arn:aws:iam::222222222222:user/bob is not authorized to perform: sqs:sendmessage on resource: " + ownerQueueARN +
				" with an explicit deny in a resource-based policy"},
		{"a role's deny refuses its sessions", `{"Statement":[{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::123456789012:role/reporting"},"Action":"sqs:SendMessage","Resource":"*"}]}`, worker, sendAs,
			"User: arn:aws:sts::123456789012:assumed-role/reporting/job-7 is not authorized to perform: sqs:sendmessage on resource: " + ownerQueueARN +
				" with an explicit deny in a resource-based policy"},
		{"a deny for another principal leaves the owner alone", `{"Statement":[{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::123456789012:role/reporting"},"Action":"sqs:SendMessage","Resource":"*"}]}`, Identity{}, sendAs, ""},
		{"a resource that is not the queue allows nothing", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:*:123456789012:other"}]}`, bob, sendAs, implicit},
		{"an allow conditioned on aws:SourceArn admits no direct caller", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*",
			"Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:222222222222:topic"}}}]}`, bob, sendAs, implicit},
		{"a deny unless aws:SourceArn refuses a direct caller", `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:SendMessage","Resource":"*",
			"Condition":{"ArnNotEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:topic"}}}]}`, Identity{}, sendAs,
			"User: arn:aws:iam::123456789012:root is not authorized to perform: sqs:sendmessage on resource: " + ownerQueueARN +
				" with an explicit deny in a resource-based policy"},
		{"aws:PrincipalOrgID matches a caller of the organization", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*",
			"Condition":{"StringEquals":{"aws:PrincipalOrgID":"o-a1b2c3d4e5"}}}]}`, Identity{AccountID: accountB, PrincipalARN: bob.PrincipalARN, OrgID: "o-a1b2c3d4e5"}, sendAs, ""},
		{"aws:PrincipalOrgID does not match a caller of none", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*",
			"Condition":{"StringEquals":{"aws:PrincipalOrgID":"o-a1b2c3d4e5"}}}]}`, bob, sendAs, implicit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := New()
			attrs := map[string]string{}
			if tc.policy != "" {
				attrs["Policy"] = tc.policy
			}
			q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: attrs})
			require.NoError(t, err)
			before, _ := f.Queue("q")
			err = tc.call(ctx, f, q.QueueUrl, ActAs(tc.as))
			if tc.message == "" {
				require.NoError(t, err)
				return
			}
			var api smithy.APIError
			require.True(t, errors.As(err, &api), "want AccessDenied, got %v", err)
			assert.Equal(t, "AccessDenied", api.ErrorCode())
			assert.Equal(t, tc.message, api.ErrorMessage())
			assert.Equal(t, smithy.FaultClient, api.ErrorFault())
			var re *awshttp.ResponseError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, http.StatusForbidden, re.HTTPStatusCode())
			after, err := f.Queue("q")
			require.NoError(t, err, "the queue is still there")
			assert.Equal(t, before, after, "nothing changed")
		})
	}
}

func TestGetQueueUrlOfAnotherAccountNeedsItsPermission(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("shared")})
	require.NoError(t, err)
	b := ActAs(Identity{AccountID: accountB})
	in := &sqs.GetQueueUrlInput{QueueName: aws.String("shared"), QueueOwnerAWSAccountId: aws.String(DefaultAccountID)}
	_, err = f.GetQueueUrl(ctx, in, b)
	requireCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")
	_, err = f.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: q.QueueUrl, Label: aws.String("find"),
		AWSAccountIds: []string{accountB}, Actions: []string{"GetQueueUrl"}})
	require.NoError(t, err)
	out, err := f.GetQueueUrl(ctx, in, b)
	require.NoError(t, err)
	assert.Equal(t, *q.QueueUrl, *out.QueueUrl)
	// Without QueueOwnerAWSAccountId the name is looked up in the caller's own account.
	_, err = f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("shared")}, b)
	requireCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")
}

func TestAddPermissionLetsAnotherAccountConsume(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	require.NoError(t, err)
	consumer := f.Client(ActAs(Identity{AccountID: accountB}))
	_, err = f.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: q.QueueUrl, Label: aws.String("consumer"),
		AWSAccountIds: []string{accountB}, Actions: []string{"ReceiveMessage", "DeleteMessage"}})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("order-1")})
	require.NoError(t, err)
	got, err := consumer.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	_, err = consumer.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q.QueueUrl,
		Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String("1"), ReceiptHandle: got.Messages[0].ReceiptHandle}}})
	require.NoError(t, err)
	_, err = consumer.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireCode(t, err, "AccessDenied")
	// AddPermission itself never crosses accounts.
	_, err = consumer.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: q.QueueUrl, Label: aws.String("more"),
		AWSAccountIds: []string{accountB}, Actions: []string{"SendMessage"}})
	requireCode(t, err, "AccessDenied")
	_, err = f.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: q.QueueUrl, Label: aws.String("consumer")})
	require.NoError(t, err)
	_, err = consumer.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	requireCode(t, err, "AccessDenied")
}

func TestSecureTransportIsFalseOverPlainHTTP(t *testing.T) {
	ctx := context.Background()
	f := New()
	policy := `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"Policy": policy}})
	require.NoError(t, err)
	require.NoError(t, sendAs(ctx, f, q.QueueUrl, nil), "in memory the SDK's endpoints are HTTPS")
	_, err = f.Client().SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	require.NoError(t, err)
	_, err = wireClientAs(f, "test", "test", "us-east-1").SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireCode(t, err, "AccessDenied")
}

// BenchmarkAccessCheckTenStatements is the whole check a call of another account makes
// against a queue with a 10-statement policy that admits it at its last statement (issue:
// at most 1 µs).
func BenchmarkAccessCheckTenStatements(b *testing.B) {
	ctx := context.Background()
	f := New(WithAccountID("444455556666"))
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"), Attributes: map[string]string{"Policy": polBenchPolicy}})
	require.NoError(b, err)
	f.mu.Lock()
	queue, _ := f.lookupURL(f.homeActor, *q.QueueUrl)
	a := f.actorFor(&identity{account: "111122223333", principal: polSession})
	f.mu.Unlock()
	require.Nil(b, access(a, queue, "SendMessage"))
	b.ReportAllocs()
	for b.Loop() {
		_ = access(a, queue, "SendMessage")
	}
}

func TestGetQueueUrlDeniedToItsOwnAccountIsAccessDenied(t *testing.T) {
	ctx := context.Background()
	f := New()
	policy := `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:GetQueueUrl","Resource":"*"}]}`
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"Policy": policy}})
	require.NoError(t, err)
	// The owner knows the queue is there: an explicit deny says so, where a caller of another
	// account is told the queue does not exist.
	_, err = f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q")})
	requireCode(t, err, "AccessDenied")
	_, err = f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q"), QueueOwnerAWSAccountId: aws.String(DefaultAccountID)},
		ActAs(Identity{AccountID: accountB}))
	requireCode(t, err, "AWS.SimpleQueueService.NonExistentQueue")
}
