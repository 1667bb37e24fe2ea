// Package bridge carries the companions' contract from package sqsfake, which fills it in,
// to package companion, which offers it: the root package cannot export what only companions
// call without showing it to every test author, and cannot import package companion (which
// names *sqsfake.Fake). This package imports neither.
//
// It holds what both sides must name: the one value that reaches the engine (Engine), the
// context key of a step, and the plain data the contract passes across. Package companion
// declares the documented twins of these types and converts; nothing else imports this
// package (.ci/deps checks it).
package bridge

import "context"

// Engine is set by package sqsfake as it initialises: a value whose methods are the root
// package's side of the contract, each taking the *sqsfake.Fake it acts on. Package companion
// asserts it to the interface it names (companion/engine.go) once, as it initialises.
var Engine any

// StepKey is the key of a context value that marks a call as part of a step of a clock move
// (companion.StepKey is this type).
type StepKey struct{}

// Call is the root package's side of one companion.ServiceCall.
type Call interface {
	RequestID() string
	Refusal(ctx context.Context) error
	FailsEntry(id string) (bool, error)
	Settle(ctx context.Context, err error) error
	End(err error)
}

// ServicePrincipal is companion.ServicePrincipal's twin: the same fields, converted freely.
type ServicePrincipal struct {
	Service, SourceArn, SourceAccount, SenderID, Region string
}

// PolicyRequest is companion.PolicyRequest's twin.
type PolicyRequest struct {
	AccountID, PrincipalARN, Service string
	Action, Resource                 string
	SourceArn, SourceAccount         string
}

// Decision is what a compiled resource policy decides (companion.PolicyDecision's values).
type Decision uint8

// The decisions, in companion.PolicyDecision's order.
const (
	ImplicitDeny Decision = iota
	Allowed
	ExplicitDeny
)

// SignatureError is companion.SignatureError's twin.
type SignatureError struct {
	Code    string
	Message string
	Status  int
}
