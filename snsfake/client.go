package snsfake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// opFunc calls one of the fake's methods with an input of its type.
type opFunc func(s *Fake, ctx context.Context, params any, optFns []func(*sns.Options)) (any, error)

func op[In, Out any](m func(*Fake, context.Context, *In, ...func(*sns.Options)) (*Out, error)) opFunc {
	return func(s *Fake, ctx context.Context, params any, optFns []func(*sns.Options)) (any, error) {
		in, ok := params.(*In)
		if !ok {
			return nil, fmt.Errorf("snsfake: input %T is not a %T", params, in)
		}
		return m(s, ctx, in, optFns...)
	}
}

// operations are the SNS operations the fake has, by the SDK's operation name: topics,
// subscriptions, publishing, tags, topic permissions and data-protection policies. The SMS,
// mobile-push and platform-application operations are not among them (see the package doc).
var operations = map[string]opFunc{
	"AddPermission":             op((*Fake).AddPermission),
	"ConfirmSubscription":       op((*Fake).ConfirmSubscription),
	"CreateTopic":               op((*Fake).CreateTopic),
	"DeleteTopic":               op((*Fake).DeleteTopic),
	"GetDataProtectionPolicy":   op((*Fake).GetDataProtectionPolicy),
	"GetSubscriptionAttributes": op((*Fake).GetSubscriptionAttributes),
	"GetTopicAttributes":        op((*Fake).GetTopicAttributes),
	"ListSubscriptions":         op((*Fake).ListSubscriptions),
	"ListSubscriptionsByTopic":  op((*Fake).ListSubscriptionsByTopic),
	"ListTagsForResource":       op((*Fake).ListTagsForResource),
	"ListTopics":                op((*Fake).ListTopics),
	"Publish":                   op((*Fake).Publish),
	"PublishBatch":              op((*Fake).PublishBatch),
	"PutDataProtectionPolicy":   op((*Fake).PutDataProtectionPolicy),
	"RemovePermission":          op((*Fake).RemovePermission),
	"SetSubscriptionAttributes": op((*Fake).SetSubscriptionAttributes),
	"SetTopicAttributes":        op((*Fake).SetTopicAttributes),
	"Subscribe":                 op((*Fake).Subscribe),
	"TagResource":               op((*Fake).TagResource),
	"Unsubscribe":               op((*Fake).Unsubscribe),
	"UntagResource":             op((*Fake).UntagResource),
}

// Operations returns the names of the SNS operations the fake has, sorted.
func Operations() []string {
	names := make([]string, 0, len(operations))
	for n := range operations {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ErrEscaped is the error a Client call gets when its request got past the fake's
// middleware (per-call optFns that replaced APIOptions): it never reaches a network.
var ErrEscaped = errors.New("snsfake: request escaped the fake")

type escapeGuard struct{}

func (escapeGuard) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	return nil, fmt.Errorf("%w (%s %s): keep the fake's middleware in APIOptions — append to the list, do not replace it", ErrEscaped, r.Method, r.URL)
}

// Client returns a real *sns.Client whose calls the fake answers in memory, as
// sqsfake's Fake.Client does for SQS: the SDK runs its own client-side validation and
// middleware, and the fake's middleware answers each operation with the fake's method of
// that name. optFns apply as they would to sns.New (ActAs, Region). An operation the fake
// does not have (SMS, mobile push) fails with an error naming it.
func (s *Fake) Client(optFns ...func(*sns.Options)) *sns.Client {
	door := &doorMiddleware{s: s}
	fns := append(slices.Clip(optFns), func(o *sns.Options) {
		o.APIOptions = append([]func(*middleware.Stack) error{door.add}, o.APIOptions...)
		o.HTTPClient = escapeGuard{}
		door.creds, door.region = o.Credentials, o.Region
	})
	return sns.New(sns.Options{
		Region:           companion.Region(s.sq),
		BaseEndpoint:     aws.String("http://sns.fake.invalid"),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
		HTTPClient:       escapeGuard{},
	}, fns...)
}

type doorMiddleware struct {
	s      *Fake
	creds  aws.CredentialsProvider
	region string
}

func (*doorMiddleware) ID() string { return "SNSFake" }

func (m *doorMiddleware) add(st *middleware.Stack) error {
	if err := st.Initialize.Add(rejectionRecorder{m.s}, middleware.Before); err != nil {
		return err
	}
	return st.Serialize.Add(m, middleware.Before)
}

// rejectionRecorder records the calls the SDK's client-side validation refuses before they
// reach the fake, as door 1 records the same refusals, so that both doors number calls
// alike.
type rejectionRecorder struct{ s *Fake }

func (rejectionRecorder) ID() string { return "SNSFakeRejections" }

func (r rejectionRecorder) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleInitialize(ctx, in)
	var invalid smithy.InvalidParamsError
	if name := middleware.GetOperationName(ctx); err != nil && errors.As(err, &invalid) && operations[name] != nil {
		sc := companion.BeginServiceCall(r.s.sq, recordName(name), sqsfake.DoorClient, nil, in.Parameters, false)
		sc.End(operationError(name, "", invalid))
	}
	return out, md, err
}

func (m *doorMiddleware) HandleSerialize(ctx context.Context, in middleware.SerializeInput, _ middleware.SerializeHandler) (
	middleware.SerializeOutput, middleware.Metadata, error) {
	var md middleware.Metadata
	name := middleware.GetOperationName(ctx)
	call, ok := operations[name]
	if !ok {
		return middleware.SerializeOutput{}, md, fmt.Errorf("snsfake: the fake does not have the SNS operation %q (SMS and mobile push are not modelled)", name)
	}
	region := awsmiddleware.GetRegion(ctx)
	if region == "" {
		region = m.region
	}
	creds := m.creds
	if id, ok := ctx.Value(identityKey{}).(sqsfake.Identity); ok {
		creds = identityCredentials{id} // a per-call ActAs
	}
	as := func(o *sns.Options) {
		o.Region = region
		o.Credentials = creds
	}
	note := &wireNote{door: sqsfake.DoorClient}
	out, err := call(m.s, context.WithValue(ctx, requestIDKey{}, note), in.Parameters, []func(*sns.Options){as})
	if err != nil {
		if oe, ok := err.(*smithy.OperationError); ok {
			err = oe.Err // the SDK adds the OperationError layer itself
		}
		return middleware.SerializeOutput{}, md, err
	}
	if note.requestID != "" {
		awsmiddleware.SetRequestIDMetadata(&md, note.requestID)
	}
	return middleware.SerializeOutput{Result: out}, md, nil
}
