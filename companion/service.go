package companion

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake/internal/bridge"
)

// ServicePrincipal is an AWS service acting on a queue on behalf of one of its resources, as
// Amazon SNS sends a topic's notifications to a subscribed queue. A call made as one
// (AsService, WithService) is decided by the queue's Policy alone: the queue's owner rule
// does not admit it, whatever account the resource belongs to — SNS "uses a different
// account than the one that owns the SQS queue and the SNS topic"
// (https://github.com/aws/aws-sdk-go/issues/2415, AWS staff). A statement admits it with
// Principal "*", {"AWS":"*"} or {"Service": Service}; its request context has aws:SourceArn
// and aws:SourceAccount.
type ServicePrincipal struct {
	// Service is the service principal's name, such as "sns.amazonaws.com"; required.
	Service string
	// SourceArn and SourceAccount are the resource the service acts for and its account:
	// aws:SourceArn and aws:SourceAccount ("" = absent).
	SourceArn, SourceAccount string
	// SenderID is the SenderId system attribute of the messages it sends; "" = the
	// SourceAccount (or the fake's sqsfake.WithSenderID when that is "" too).
	SenderID string
	// Region is the region the service acts in, the region of the queues it calls; "" =
	// the fake's (or, with AsService, the options' Region).
	Region string
}

// AsService returns an option that makes a call act as the service principal p, in the
// fake's region unless the options name another: pass it to a Fake method or to a client
// from f.Client, as sqsfake.ActAs. Such calls are in the call record with p.Service as their
// Caller.PrincipalARN, and they do not change f.LastError (it is the service's failure, not
// the test's). A p without a Service acts as the fake's own identity.
func AsService(p ServicePrincipal) func(*sqs.Options) {
	return eng.AsService(bridge.ServicePrincipal(p))
}

// WithService returns a context under which a call of the fake's methods acts as the
// service principal p, as with AsService but without copying the fake's options for the
// call: the cheap form for a companion that makes many calls (snsfake delivers with it). Use
// a context from it for one call at a time (it notes the call's number). A p without a
// Service returns ctx.
func WithService(ctx context.Context, p ServicePrincipal) context.Context {
	return eng.WithService(ctx, bridge.ServicePrincipal(p))
}
