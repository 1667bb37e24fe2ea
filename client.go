package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// Door 2: a real *sqs.Client whose calls the fake answers. A middleware at the front of the
// Serialize step hands the typed input to the door-1 method and returns its output, so the
// SDK's own Initialize step runs around it — input validation, the MD5 body checks, the
// long-poll context, per-call optFns — and the SDK wraps errors in its OperationError itself.
// Nothing is serialized and no request is built.

// fakeEndpoint is the endpoint a client from Client names. The .invalid top-level domain is
// reserved (RFC 2606): nothing routable can ever answer it.
const fakeEndpoint = "http://sqs.fake.invalid"

// ErrEscaped is the error a client from Client fails with if a request ever gets past the
// fake to the HTTP layer — when per-call optFns replace APIOptions instead of appending to
// them, say. The fake's clients never reach a network.
var ErrEscaped = errors.New("sqsfake: request escaped the fake")

// escapeGuard is the HTTP client of the clients Client returns: it refuses every request.
type escapeGuard struct{}

func (escapeGuard) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	return nil, fmt.Errorf("%w (%s %s): keep the fake's middleware in APIOptions — append to the list, do not replace it", ErrEscaped, r.Method, r.URL)
}

// Client returns a real *sqs.Client from aws-sdk-go-v2 whose operations the fake answers in
// memory, for code that needs the concrete client type rather than an interface. The SDK's
// own machinery runs as against AWS: client-side validation, the MD5 checks of message
// bodies, optFns (at construction and per call), and its error wrapping, so results and
// Error() strings are identical to the fake's own methods. Long polls honour the caller's
// context and block on the fake's clock, as they do through the methods.
//
// The client needs no credentials or network. It is configured with the fake's region,
// anonymous credentials, one attempt per call and the endpoint http://sqs.fake.invalid;
// optFns apply on top of that. Its HTTP client refuses every request with ErrEscaped, and
// the optFns given to Client cannot replace it; per-call optFns can, like any other option,
// but only a call whose optFns also remove the fake's middleware would then reach it. It works inside a testing/synctest bubble.
func (f *Fake) Client(optFns ...func(*sqs.Options)) *sqs.Client {
	door := &doorMiddleware{f: f}
	fns := append(slices.Clip(optFns), func(o *sqs.Options) {
		// First in the list, so that Serialize-step middlewares a caller adds with
		// middleware.Before, at construction or per call, still run before the fake answers.
		o.APIOptions = append([]func(*middleware.Stack) error{door.add}, o.APIOptions...)
		// Last, so that the optFns given to Client cannot open a way to a network: a request
		// that gets past the fake's middleware (per-call optFns that replace APIOptions) is
		// refused here.
		o.HTTPClient = escapeGuard{}
		// The identity the client's own Region and credentials give its calls.
		door.as = identityOf(o.Region, f.region, o.Credentials)
	})
	return sqs.New(sqs.Options{
		Region:           f.region,
		BaseEndpoint:     aws.String(fakeEndpoint),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
		HTTPClient:       escapeGuard{},
	}, fns...)
}

// doorMiddleware answers an operation at the Serialize step with the door-1 method.
type doorMiddleware struct {
	f  *Fake
	as identity // who the client's calls act as, unless a call says otherwise
}

// ID names the middleware in the SDK's stack.
func (*doorMiddleware) ID() string { return "SQSFake" }

func (m *doorMiddleware) add(s *middleware.Stack) error {
	if err := s.Initialize.Add(rejectionRecorder{m.f}, middleware.Before); err != nil {
		return err
	}
	return s.Serialize.Add(m, middleware.Before)
}

// rejectionRecorder records a call that the SDK's client-side validation refuses: such a
// call never reaches doorMiddleware, yet door 1 counts and records the same call, and a test
// that counts the calls its code makes (WaitForCalls) must see it through either door.
type rejectionRecorder struct{ f *Fake }

// ID names the middleware in the SDK's stack.
func (rejectionRecorder) ID() string { return "SQSFakeRejections" }

// HandleInitialize runs the rest of the stack and records the call if validation refused it.
func (r rejectionRecorder) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleInitialize(ctx, in)
	var invalid smithy.InvalidParamsError
	if err != nil && errors.As(err, &invalid) {
		if name := middleware.GetOperationName(ctx); operationIndex[name] != 0 {
			r.f.recordRejected(name, DoorClient, in.Parameters, err)
		}
	}
	return out, md, err
}

// HandleSerialize calls the door-1 method for the operation and returns its result; it never
// calls next, so nothing is serialized or sent.
func (m *doorMiddleware) HandleSerialize(ctx context.Context, in middleware.SerializeInput, _ middleware.SerializeHandler) (
	middleware.SerializeOutput, middleware.Metadata, error) {
	var md middleware.Metadata
	name := middleware.GetOperationName(ctx)
	op, ok := operations[name]
	if !ok {
		return middleware.SerializeOutput{}, md, fmt.Errorf("sqsfake: the fake does not know the operation %q", name)
	}
	cn := &callNumber{door: DoorClient}
	as := m.as
	if id, ok := ctx.Value(identityKey{}).(Identity); ok {
		as = identityFromPublic(id) // a per-call ActAs
	}
	if p, ok := ctx.Value(serviceKey{}).(servicePrincipal); ok {
		as = identity{region: p.Region, service: p} // a per-call asService
	}
	if region := awsmiddleware.GetRegion(ctx); region != "" && as.region == "" {
		as.region = region // a per-call Region
	}
	if as = m.f.trimOwn(as); as != (identity{}) { // the fake's own allocates nothing
		cn.as = new(identity) // only off the default path: the common call allocates nothing more
		*cn.as = as
	}
	out, err := op.call(m.f, context.WithValue(ctx, callNumberKey{}, cn), in.Parameters, viaSDK(in.Parameters)...)
	if err != nil {
		// Door 1 returns the SDK's whole chain; the SDK adds the OperationError layer itself.
		if oe, ok := err.(*smithy.OperationError); ok {
			err = oe.Err
		}
		return middleware.SerializeOutput{}, md, err
	}
	if cn.n != 0 {
		awsmiddleware.SetRequestIDMetadata(&md, uuidFor(m.f.seed, streamRequestID, cn.n))
	}
	return middleware.SerializeOutput{Result: out}, md, nil
}

// skipChecksumEmulation is the option door 2 passes when the SDK itself will check the MD5 of
// a message body: door 1 emulates that check only for callers that bypass the SDK.
func skipChecksumEmulation(o *sqs.Options) { o.DisableMessageChecksumValidation = true }

// viaSDK returns the door-1 options of a call through door 2, whose input is params.
func viaSDK(params any) []func(*sqs.Options) {
	switch in := params.(type) {
	case *sqs.SendMessageInput:
		return sendOptions(in)
	case *sqs.SendMessageBatchInput:
		return sendBatchOptions(in)
	}
	return nil
}

// sendOptions returns the door-1 options for a SendMessage through the SDK. Door 1 can only
// fail its emulated check on a body that is not valid UTF-8; for such a body it leaves the
// check to the SDK, which makes it with the caller's effective options.
func sendOptions(in *sqs.SendMessageInput) []func(*sqs.Options) {
	if utf8.ValidString(aws.ToString(in.MessageBody)) {
		return nil
	}
	return []func(*sqs.Options){skipChecksumEmulation}
}

// sendBatchOptions is sendOptions for SendMessageBatch.
func sendBatchOptions(in *sqs.SendMessageBatchInput) []func(*sqs.Options) {
	for _, e := range in.Entries {
		if !utf8.ValidString(aws.ToString(e.MessageBody)) {
			return []func(*sqs.Options){skipChecksumEmulation}
		}
	}
	return nil
}
