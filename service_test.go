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
	sns := servicePrincipal{Service: "sns.amazonaws.com", SourceArn: topic, SourceAccount: "123456789012"}
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
			err = sendAs(ctx, f, q.QueueUrl, asService(sns))
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
	require.NoError(t, sendAs(ctx, f, q.QueueUrl, asService(servicePrincipal{Service: "sns.amazonaws.com", SourceAccount: "123456789012", SenderID: "AIDAIVEA3AGEU7NF6DRAG"})))
	require.NoError(t, sendAs(ctx, f, q.QueueUrl, asService(servicePrincipal{Service: "sns.amazonaws.com", SourceAccount: "123456789012"})))
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

func TestAServicePrincipalActsThroughEveryDoorAndContext(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	p := servicePrincipal{Service: "sns.amazonaws.com", SourceArn: "arn:aws:sns:us-east-1:123456789012:t"}
	requireDenied := func(err error) {
		t.Helper()
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "got %v", err)
		assert.Equal(t, "AccessDenied", api.ErrorCode())
	}
	requireDenied(sendAs(ctx, f, q.QueueUrl, asService(p)))
	requireDenied(sendAs(withService(ctx, p), f, q.QueueUrl, nil))
	_, err = f.Client().SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}, asService(p))
	requireDenied(err)
	_, err = f.Client(asService(p)).SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
	requireDenied(err)
	assert.Equal(t, ctx, withService(ctx, servicePrincipal{}))
}

func TestAServicePrincipalActsInItsRegion(t *testing.T) {
	ctx := context.Background()
	f := New()
	eu := ActAs(Identity{Region: "eu-west-1"})
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("far"), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"}]}`}}, eu)
	require.NoError(t, err)
	p := servicePrincipal{Service: "sns.amazonaws.com", SourceAccount: "123456789012", Region: "eu-west-1"}
	require.NoError(t, sendAs(withService(ctx, p), f, q.QueueUrl, nil))
	require.NoError(t, sendAs(ctx, f, q.QueueUrl, asService(p)))
	calls := f.Calls(CallFilter{Operation: "SendMessage"})
	require.Len(t, calls, 2)
	assert.Equal(t, "eu-west-1", calls[0].Caller.Region)
}

func TestServiceKeyIsTheSeedsInMemoryAndTheSecretsInSignedMode(t *testing.T) {
	a, b := New(WithSeed(3)), New(WithSeed(3))
	assert.Equal(t, a.serviceKey("tokens"), b.serviceKey("tokens"), "the same seed, the same key")
	assert.NotEqual(t, a.serviceKey("tokens"), a.serviceKey("other"), "one key a purpose")
	assert.NotEqual(t, a.serviceKey("tokens"), New(WithSeed(4)).serviceKey("tokens"))
	before := a.serviceKey("tokens")
	a.Reset()
	assert.NotEqual(t, before, a.serviceKey("tokens"), "a Reset changes it")
	signed := New(WithSeed(3), WithCredentials(Credential{AccessKeyID: "AKID", SecretAccessKey: "s1", AccountID: "111122223333"}))
	other := New(WithSeed(3), WithCredentials(Credential{AccessKeyID: "AKID", SecretAccessKey: "s2", AccountID: "111122223333"}))
	assert.NotEqual(t, b.serviceKey("tokens"), signed.serviceKey("tokens"))
	assert.NotEqual(t, signed.serviceKey("tokens"), other.serviceKey("tokens"), "another secret, another key")
}
