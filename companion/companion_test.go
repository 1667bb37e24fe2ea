package companion_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// TestTheFakesSettingsReadBack pins what a companion reads of the fake it is built on: the
// settings New was given, and the epoch Reset and WithEpoch move.
func TestTheFakesSettingsReadBack(t *testing.T) {
	tests := []struct {
		name string
		opts []sqsfake.Option
		read func(f *sqsfake.Fake) any
		want any
	}{
		{"seed", []sqsfake.Option{sqsfake.WithSeed(42)}, func(f *sqsfake.Fake) any { return companion.Seed(f) }, uint64(42)},
		{"partition by default", nil, func(f *sqsfake.Fake) any { return companion.Partition(f) }, "aws"},
		{"partition of a China region", []sqsfake.Option{sqsfake.WithRegion("cn-north-1")}, func(f *sqsfake.Fake) any { return companion.Partition(f) }, "aws-cn"},
		{"partition of GovCloud", []sqsfake.Option{sqsfake.WithRegion("us-gov-west-1")}, func(f *sqsfake.Fake) any { return companion.Partition(f) }, "aws-us-gov"},
		{"no endpoint", nil, func(f *sqsfake.Fake) any { return companion.Endpoint(f) }, ""},
		{"endpoint", []sqsfake.Option{sqsfake.WithEndpoint("http://127.0.0.1:9324/")}, func(f *sqsfake.Fake) any { return companion.Endpoint(f) }, "http://127.0.0.1:9324"},
		{"epoch of a new fake", nil, func(f *sqsfake.Fake) any { return companion.Epoch(f) }, uint64(0)},
		{"epoch after two resets", nil, func(f *sqsfake.Fake) any { f.Reset(); f.Reset(); return companion.Epoch(f) }, uint64(2)},
		{"WithEpoch", []sqsfake.Option{companion.WithEpoch(7)}, func(f *sqsfake.Fake) any { f.Reset(); return companion.Epoch(f) }, uint64(8)},
		{"a virtual clock is not caught up with", nil, func(f *sqsfake.Fake) any { return companion.CatchesUp(f) }, false},
		{"a benbjohnson mock is", []sqsfake.Option{sqsfake.WithClock(sqsfake.NewMockClock())}, func(f *sqsfake.Fake) any { return companion.CatchesUp(f) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.read(sqsfake.New(tt.opts...)))
		})
	}
}

// TestWithEpochIssuesAnotherEpochsReceiptHandles: a fake that replaces another with
// WithEpoch hands out receipt handles the replaced one never did, so a handle kept from before
// the replacement names no message of the new fake.
func TestWithEpochIssuesAnotherEpochsReceiptHandles(t *testing.T) {
	handle := func(opts ...sqsfake.Option) string {
		ctx := context.Background()
		f := sqsfake.New(opts...)
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
		require.NoError(t, err)
		_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")})
		require.NoError(t, err)
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		require.NoError(t, err)
		require.Len(t, out.Messages, 1)
		return *out.Messages[0].ReceiptHandle
	}
	assert.Equal(t, handle(), handle(companion.WithEpoch(0)))
	assert.NotEqual(t, handle(), handle(companion.WithEpoch(1)))
}

// TestServiceKeyIsOnePerPurposeAndEpoch: the key is the same for the same seed, purpose and
// epoch, and differs when any of them does.
func TestServiceKeyIsOnePerPurposeAndEpoch(t *testing.T) {
	a, b := sqsfake.New(sqsfake.WithSeed(3)), sqsfake.New(sqsfake.WithSeed(3))
	assert.Equal(t, companion.ServiceKey(a, "tokens"), companion.ServiceKey(b, "tokens"))
	assert.NotEqual(t, companion.ServiceKey(a, "tokens"), companion.ServiceKey(a, "other"))
	assert.NotEqual(t, companion.ServiceKey(a, "tokens"), companion.ServiceKey(sqsfake.New(sqsfake.WithSeed(4)), "tokens"))
	before := companion.ServiceKey(a, "tokens")
	a.Reset()
	assert.NotEqual(t, before, companion.ServiceKey(a, "tokens"))
}

func TestOnResetRunsAfterTheFakeIsClearedUntilRemoved(t *testing.T) {
	f := sqsfake.New()
	var seen []int
	remove := companion.OnReset(f, func() { seen = append(seen, len(f.Queues())) })
	_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	f.Reset()
	remove()
	f.Reset()
	assert.Equal(t, []int{0}, seen)
}

func TestResourcePolicyDecidesWithTheQueuePolicyEngine(t *testing.T) {
	p, err := companion.CompileResourcePolicy(`{"Version":"2008-10-17","Statement":[
		{"Effect":"Allow","Principal":{"AWS":"222222222222"},"Action":["sns:Publish","SNS:Subscribe"],"Resource":"arn:aws:sns:us-east-1:123456789012:t"},
		{"Effect":"Deny","Principal":"*","Action":"sns:DeleteTopic","Resource":"*"},
		{"Effect":"Allow","Principal":{"Service":"events.amazonaws.com"},"Action":"sns:Publish","Resource":"*","Condition":{"ArnEquals":{"aws:SourceArn":"arn:aws:events:us-east-1:123456789012:rule/r"}}},
		{"Effect":"Allow","Principal":{"AWS":"*"},"Action":["SNS:GetTopicAttributes","SNS:SetTopicAttributes","SNS:AddPermission","SNS:RemovePermission","SNS:DeleteTopic","SNS:Subscribe","SNS:ListSubscriptionsByTopic","SNS:Publish"],"Resource":"*","Condition":{"StringEquals":{"AWS:SourceOwner":"999999999999"}}}]}`)
	require.NoError(t, err)
	topic := "arn:aws:sns:us-east-1:123456789012:t"
	tests := []struct {
		name string
		req  companion.PolicyRequest
		want companion.PolicyDecision
	}{
		{"an allowed account's user", companion.PolicyRequest{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:user/bob", Action: "SNS:Publish", Resource: topic}, companion.PolicyAllowed},
		{"actions match without case", companion.PolicyRequest{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:root", Action: "sns:subscribe", Resource: topic}, companion.PolicyAllowed},
		{"another account", companion.PolicyRequest{AccountID: "333333333333", PrincipalARN: "arn:aws:iam::333333333333:root", Action: "sns:Publish", Resource: topic}, companion.PolicyImplicitDeny},
		{"another service's action", companion.PolicyRequest{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:root", Action: "sqs:Publish", Resource: topic}, companion.PolicyImplicitDeny},
		{"a Deny wins", companion.PolicyRequest{AccountID: "123456789012", PrincipalARN: "arn:aws:iam::123456789012:root", Action: "sns:DeleteTopic", Resource: topic}, companion.PolicyExplicitDeny},
		{"a service principal from its source", companion.PolicyRequest{Service: "events.amazonaws.com", Action: "sns:Publish", Resource: topic, SourceArn: "arn:aws:events:us-east-1:123456789012:rule/r"}, companion.PolicyAllowed},
		{"a service principal from another source", companion.PolicyRequest{Service: "events.amazonaws.com", Action: "sns:Publish", Resource: topic, SourceArn: "arn:aws:events:us-east-1:123456789012:rule/other"}, companion.PolicyImplicitDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, p.Decide(tt.req)) })
	}
	_, err = companion.CompileResourcePolicy(`{"Statement":"nope"}`)
	assert.Error(t, err)
}

// TestAServicePrincipalIsDecidedByTheQueuePolicy: both forms of acting as a service reach the
// queue's Policy, which alone admits the service, and the call record names the service.
func TestAServicePrincipalIsDecidedByTheQueuePolicy(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	closed, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("closed")})
	require.NoError(t, err)
	open, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("open"), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"Service":"events.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"*"}]}`}})
	require.NoError(t, err)
	p := companion.ServicePrincipal{Service: "events.amazonaws.com", SourceAccount: "123456789012", SenderID: "AIDAEVENTS"}
	send := func(ctx context.Context, url *string, optFns ...func(*sqs.Options)) error {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("x")}, optFns...)
		return err
	}
	for name, err := range map[string]error{
		"AsService":   send(ctx, closed.QueueUrl, companion.AsService(p)),
		"WithService": send(companion.WithService(ctx, p), closed.QueueUrl),
	} {
		var api smithy.APIError
		require.True(t, errors.As(err, &api), "%s: got %v", name, err)
		assert.Equal(t, "AccessDenied", api.ErrorCode(), name)
	}
	require.NoError(t, send(ctx, open.QueueUrl, companion.AsService(p)))
	require.NoError(t, send(companion.WithService(ctx, p), open.QueueUrl))
	assert.NoError(t, f.LastError(), "a service's refusal is not the test's last error")
	calls := f.Calls(sqsfake.CallFilter{Operation: "SendMessage"})
	require.Len(t, calls, 4)
	for _, c := range calls {
		assert.Equal(t, "events.amazonaws.com", c.Caller.PrincipalARN)
	}
	assert.Equal(t, ctx, companion.WithService(ctx, companion.ServicePrincipal{}), "no Service: the fake's own identity")
}

// TestAServiceCallIsInTheRecordAndUnderFaults pins a companion's operation in the call
// record (numbered with the fake's calls, its request id, its error as LastError) and each
// kind of fault applied through its ServiceCall.
func TestAServiceCallIsInTheRecordAndUnderFaults(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	companion.RegisterOperations(f, "Toy.Ping")
	companion.RegisterBatchOperation(f, "Toy.PingBatch", func(params any) []string { return params.([]string) })
	run := func(op string, params any, entries ...string) (failed []string, err error) {
		sc := companion.BeginServiceCall(f, op, sqsfake.DoorMethods, nil, params, true)
		if err = sc.Refusal(ctx); err == nil {
			for _, id := range entries {
				if fails, _ := sc.FailsEntry(id); fails {
					failed = append(failed, id)
				}
			}
			err = sc.Settle(ctx, nil)
		}
		sc.End(err)
		return failed, err
	}

	_, err := run("Toy.Ping", nil)
	require.NoError(t, err)
	boom := errors.New("boom")
	remove := f.InjectFault(sqsfake.Fault{Operation: "Toy.Ping", Err: boom})
	_, err = run("Toy.Ping", nil)
	assert.Equal(t, boom, err, "Err refuses the call before it runs")
	assert.Equal(t, boom, f.LastError())
	remove()
	remove = f.InjectFault(sqsfake.Fault{Operation: "Toy.Ping", LoseResponse: true})
	_, err = run("Toy.Ping", nil)
	assert.ErrorIs(t, err, sqsfake.ErrLostResponse, "LoseResponse runs it and loses the answer")
	remove()
	f.InjectFault(sqsfake.Fault{Operation: "Toy.PingBatch", FailEntries: func(id string) bool { return id == "b" }})
	failed, err := run("Toy.PingBatch", []string{"a", "b", "c"}, "a", "b", "c")
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, failed, "FailEntries fails the entries it picks")

	calls := f.Calls(sqsfake.CallFilter{Operation: "Toy.Ping"})
	require.Len(t, calls, 3)
	assert.Equal(t, []uint64{1, 2, 3}, []uint64{calls[0].Seq, calls[1].Seq, calls[2].Seq})
	assert.Equal(t, []bool{false, true, true}, []bool{calls[0].Fault, calls[1].Fault, calls[2].Fault})
	assert.Equal(t, 4, f.CallCount())

	// Latency holds the answer back on the fake's clock; the call waits as a poller.
	f.InjectFault(sqsfake.Fault{Operation: "Toy.Ping", Latency: time.Minute, Times: 1})
	done := make(chan error, 1)
	go func() { _, err := run("Toy.Ping", nil); done <- err }()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, f.WaitForPollers(wctx, 1))
	f.Advance(time.Minute)
	require.NoError(t, <-done)
}

// TestAServiceCallRefusedBeforeItRunsTakesNoFault: reached false records a call the SDK's
// client-side validation refused; no fault applies to it.
func TestAServiceCallRefusedBeforeItRunsTakesNoFault(t *testing.T) {
	f := sqsfake.New()
	companion.RegisterOperations(f, "Toy.Ping")
	f.InjectFault(sqsfake.Fault{Operation: "Toy.Ping", Err: errors.New("boom"), Times: 1})
	sc := companion.BeginServiceCall(f, "Toy.Ping", sqsfake.DoorClient, nil, nil, false)
	assert.Nil(t, sc.Fault)
	assert.NotEmpty(t, sc.RequestID())
	invalid := errors.New("validation failed")
	sc.End(invalid)
	calls := f.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, sqsfake.DoorClient, calls[0].Caller.Door)
	assert.Equal(t, sc.RequestID(), calls[0].RequestID)
	assert.Equal(t, invalid, calls[0].Err)
}

// TestVerifyRequestIsSignedModeForACompanionsWire: in lenient mode it verifies nothing; in
// signed mode it refuses an unsigned request with AWS's code and status.
func TestVerifyRequestIsSignedModeForACompanionsWire(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9324/", strings.NewReader("Action=ListTopics"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	id, signed, err := companion.VerifyRequest(sqsfake.New(), r, []byte("Action=ListTopics"), "sns")
	assert.Equal(t, sqsfake.Identity{}, id)
	assert.False(t, signed)
	assert.NoError(t, err)

	f := sqsfake.New(sqsfake.WithCredentials(sqsfake.Credential{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}))
	_, signed, err = companion.VerifyRequest(f, r, []byte("Action=ListTopics"), "sns")
	assert.True(t, signed)
	var se *companion.SignatureError
	require.True(t, errors.As(err, &se), "got %v", err)
	assert.Equal(t, "AccessDenied", se.Code)
	assert.Equal(t, http.StatusForbidden, se.Status)
	assert.Equal(t, se.Code+": "+se.Message, se.Error())
}

// TestInStepMarksAContextWithStepKey: a context of InStep answers StepKey.
func TestInStepMarksAContextWithStepKey(t *testing.T) {
	assert.Nil(t, context.Background().Value(companion.StepKey{}))
	assert.Equal(t, true, companion.InStep(context.Background()).Value(companion.StepKey{}))
}

// TestQueueListsAndPages: the cheap listings name every queue of every account and region,
// in one order, and a page's limit is checked.
func TestQueueListsAndPages(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	for _, opts := range [][]func(*sqs.Options){nil, {sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"})}} {
		for _, n := range []string{"b", "a"} {
			_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(n)}, opts...)
			require.NoError(t, err)
		}
	}
	assert.Equal(t, []string{"a", "a", "b", "b"}, companion.QueueNames(f))
	assert.Equal(t, []string{
		"arn:aws:sqs:us-east-1:123456789012:a", "arn:aws:sqs:us-east-1:222222222222:a",
		"arn:aws:sqs:us-east-1:123456789012:b", "arn:aws:sqs:us-east-1:222222222222:b",
	}, companion.QueueARNs(f))
	_, err := companion.Page(f, "nope", 0, 10)
	assert.ErrorIs(t, err, sqsfake.ErrNoQueue)
	_, _, err = companion.NextVisible(f, "nope")
	assert.ErrorIs(t, err, sqsfake.ErrNoQueue)
	assert.PanicsWithValue(t, "companion: Page with a negative limit", func() { companion.Page(f, "a", 0, -1) })
}
