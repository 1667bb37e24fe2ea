package sqsfake

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServicePrincipalIsAdmittedOnlyByTheQueuePolicy(t *testing.T) {
	const topic = "arn:aws:sns:us-east-1:123456789012:t"
	sns := ServicePrincipal{Service: "sns.amazonaws.com", SourceArn: topic, SourceAccount: "123456789012"}
	stmt := func(principal, condition string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":` + principal +
			`,"Action":"sqs:SendMessage","Resource":"` + ownerQueueARN + `"` + condition + `}]}`
	}
	onTopic := `,"Condition":{"ArnEquals":{"aws:SourceArn":"` + topic + `"}}`
	tests := []struct {
		name, policy string
		allowed      bool
	}{
		{"no policy: the owner rule does not admit a service", "", false},
		{"the service with the topic as source", stmt(`{"Service":"sns.amazonaws.com"}`, onTopic), true},
		{"the service, any source", stmt(`{"Service":["sns.amazonaws.com"]}`, ""), true},
		{"another topic as source", stmt(`{"Service":"sns.amazonaws.com"}`, `,"Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:other"}}`), false},
		{"another service", stmt(`{"Service":"events.amazonaws.com"}`, ""), false},
		{"anyone with the condition", stmt(`"*"`, onTopic), true},
		{"AWS * with the condition", stmt(`{"AWS":"*"}`, onTopic), true},
		{"the topic owner's account does not admit SNS", stmt(`{"AWS":"123456789012"}`, ""), false},
		{"source account condition", stmt(`{"Service":"sns.amazonaws.com"}`, `,"Condition":{"StringEquals":{"aws:SourceAccount":"123456789012"}}`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			f := New()
			attrs := map[string]string{}
			if tt.policy != "" {
				attrs["Policy"] = tt.policy
			}
			q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: attrs})
			require.NoError(t, err)
			err = sendAs(ctx, f, q.QueueUrl, AsService(sns))
			if !tt.allowed {
				var denied smithy.APIError
				require.True(t, errors.As(err, &denied), "got %v", err)
				assert.Equal(t, "AccessDenied", denied.ErrorCode())
				assert.Equal(t, "User: sns.amazonaws.com is not authorized to perform: sqs:sendmessage on resource: "+ownerQueueARN+" because no resource-based policy allows the sqs:sendmessage action", denied.ErrorMessage())
				assert.NoError(t, f.LastError(), "a service's refusal is not the test's last error")
				return
			}
			require.NoError(t, err)
			// The owner still acts under the owner rule.
			require.NoError(t, sendAs(ctx, f, q.QueueUrl, nil))
		})
	}
}

func TestServicePrincipalSendsWithItsSenderIDAndIsRecorded(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"}]}`}})
	require.NoError(t, err)
	require.NoError(t, sendAs(ctx, f, q.QueueUrl, AsService(ServicePrincipal{Service: "sns.amazonaws.com", SourceAccount: "123456789012", SenderID: "AIDAIVEA3AGEU7NF6DRAG"})))
	require.NoError(t, sendAs(ctx, f, q.QueueUrl, AsService(ServicePrincipal{Service: "sns.amazonaws.com", SourceAccount: "123456789012"})))
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SenderId"}})
	require.NoError(t, err)
	require.Len(t, out.Messages, 2)
	assert.Equal(t, "AIDAIVEA3AGEU7NF6DRAG", out.Messages[0].Attributes["SenderId"])
	assert.Equal(t, "123456789012", out.Messages[1].Attributes["SenderId"])
	calls := f.Calls(CallFilter{Operation: "SendMessage"})
	require.Len(t, calls, 2)
	assert.Equal(t, Caller{Door: DoorMethods, AccountID: "123456789012", Region: "us-east-1", PrincipalARN: "sns.amazonaws.com", Other: true}, calls[0].Caller)
}

func TestOnResetRunsAfterTheFakeIsClearedUntilRemoved(t *testing.T) {
	f := New()
	var seen []int
	remove := f.OnReset(func() { seen = append(seen, len(f.Queues())) })
	_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	f.Reset()
	remove()
	f.Reset()
	assert.Equal(t, []int{0}, seen)
}

func TestResourcePolicyDecidesWithTheQueuePolicyEngine(t *testing.T) {
	p, err := CompileResourcePolicy(`{"Version":"2008-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":["sns:Publish","SNS:Subscribe"],"Resource":"arn:aws:sns:us-east-1:123456789012:t"},
		{"Effect":"Deny","Principal":"*","Action":"sns:DeleteTopic","Resource":"*"},
		{"Effect":"Allow","Principal":{"AWS":"*"},"Action":["SNS:GetTopicAttributes","SNS:SetTopicAttributes","SNS:AddPermission","SNS:RemovePermission","SNS:DeleteTopic","SNS:Subscribe","SNS:ListSubscriptionsByTopic","SNS:Publish"],"Resource":"*","Condition":{"StringEquals":{"AWS:SourceOwner":"999999999999"}}}]}`)
	require.NoError(t, err)
	topic := "arn:aws:sns:us-east-1:123456789012:t"
	assert.Equal(t, PolicyAllowed, p.Decide(PolicyRequest{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:user/bob", Action: "SNS:Publish", Resource: topic}))
	assert.Equal(t, PolicyAllowed, p.Decide(PolicyRequest{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:root", Action: "sns:subscribe", Resource: topic}))
	assert.Equal(t, PolicyImplicitDeny, p.Decide(PolicyRequest{AccountID: "333333333333", PrincipalARN: "arn:aws:iam::333333333333:root", Action: "sns:Publish", Resource: topic}))
	assert.Equal(t, PolicyImplicitDeny, p.Decide(PolicyRequest{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:root", Action: "sqs:Publish", Resource: topic}))
	assert.Equal(t, PolicyExplicitDeny, p.Decide(PolicyRequest{AccountID: "123456789012", PrincipalARN: "arn:aws:iam::123456789012:root", Action: "sns:DeleteTopic", Resource: topic}))
	_, err = CompileResourcePolicy(`{"Statement":"nope"}`)
	assert.Error(t, err)
}

func TestAServicePrincipalActsThroughEveryDoorAndContext(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	p := ServicePrincipal{Service: "sns.amazonaws.com", SourceArn: "arn:aws:sns:us-east-1:123456789012:t"}
	requireDenied := func(err error) {
		t.Helper()
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "got %v", err)
		assert.Equal(t, "AccessDenied", api.ErrorCode())
	}
	requireDenied(sendAs(ctx, f, q.QueueUrl, AsService(p)))
	requireDenied(sendAs(WithService(ctx, p), f, q.QueueUrl, nil))
	_, err = f.Client().SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, AsService(p))
	requireDenied(err)
	_, err = f.Client(AsService(p)).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireDenied(err)
	assert.Equal(t, ctx, WithService(ctx, ServicePrincipal{}))
}

func TestAServicePrincipalActsInItsRegion(t *testing.T) {
	ctx := context.Background()
	f := New()
	eu := ActAs(Identity{Region: "eu-west-1"})
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("far"), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"}]}`}}, eu)
	require.NoError(t, err)
	p := ServicePrincipal{Service: "sns.amazonaws.com", SourceAccount: "123456789012", Region: "eu-west-1"}
	require.NoError(t, sendAs(WithService(ctx, p), f, q.QueueUrl, nil))
	require.NoError(t, sendAs(ctx, f, q.QueueUrl, AsService(p)))
	calls := f.Calls(CallFilter{Operation: "SendMessage"})
	require.Len(t, calls, 2)
	assert.Equal(t, "eu-west-1", calls[0].Caller.Region)
}

func TestServiceKeyIsTheSeedsInMemoryAndTheSecretsInSignedMode(t *testing.T) {
	a, b := New(WithSeed(3)), New(WithSeed(3))
	assert.Equal(t, a.ServiceKey("tokens"), b.ServiceKey("tokens"), "the same seed, the same key")
	assert.NotEqual(t, a.ServiceKey("tokens"), a.ServiceKey("other"), "one key a purpose")
	assert.NotEqual(t, a.ServiceKey("tokens"), New(WithSeed(4)).ServiceKey("tokens"))
	before := a.ServiceKey("tokens")
	a.Reset()
	assert.NotEqual(t, before, a.ServiceKey("tokens"), "a Reset changes it")
	signed := New(WithSeed(3), WithCredentials(Credential{AccessKeyID: "AKID", SecretAccessKey: "s1", AccountID: "111122223333"}))
	other := New(WithSeed(3), WithCredentials(Credential{AccessKeyID: "AKID", SecretAccessKey: "s2", AccountID: "111122223333"}))
	assert.NotEqual(t, b.ServiceKey("tokens"), signed.ServiceKey("tokens"))
	assert.NotEqual(t, signed.ServiceKey("tokens"), other.ServiceKey("tokens"), "another secret, another key")
}
