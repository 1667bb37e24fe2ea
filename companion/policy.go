package companion

import "github.com/sqsfake/sqsfake/internal/bridge"

// ResourcePolicy is a resource policy compiled by the fake's policy engine — the language
// and evaluation of queue policies — for a companion that keeps policies of its own, as
// snsfake does for topic policies.
type ResourcePolicy struct {
	decide func(bridge.PolicyRequest) bridge.Decision
}

// CompileResourcePolicy compiles a policy document; it fails where SQS would refuse the
// document's form as a queue Policy. SQS's quotas (7 actions a statement, 8 KB…) do not
// apply: they are SQS's, and SNS's default topic policy alone names 8 actions.
func CompileResourcePolicy(doc string) (*ResourcePolicy, error) {
	decide, err := eng.CompilePolicy(doc)
	if err != nil {
		return nil, err
	}
	return &ResourcePolicy{decide}, nil
}

// PolicyRequest is one request a ResourcePolicy decides: who (AccountID and PrincipalARN, or
// Service for a service principal), which action with its service prefix ("sns:Publish";
// matched without case), on which resource, with aws:SourceArn and aws:SourceAccount when
// not "".
type PolicyRequest struct {
	AccountID, PrincipalARN, Service string
	Action, Resource                 string
	SourceArn, SourceAccount         string
}

// PolicyDecision is what a ResourcePolicy decides.
type PolicyDecision uint8

// The decisions (the engine's, value for value: policy_internal_test.go).
const (
	// PolicyImplicitDeny: no statement allows the request.
	PolicyImplicitDeny PolicyDecision = iota
	// PolicyAllowed: a statement allows it and none denies it.
	PolicyAllowed
	// PolicyExplicitDeny: a statement denies it.
	PolicyExplicitDeny
)

// Decide evaluates the policy for r (no owner rule: the caller applies its own). It
// allocates nothing, but the strings of r reach the fake's engine through a call the
// compiler cannot see into: one made for the call (such as "sns:" + op) is allocated on the
// heap, so a companion on a hot path passes strings it keeps (snsfake makes its actions
// once).
func (p *ResourcePolicy) Decide(r PolicyRequest) PolicyDecision {
	return PolicyDecision(p.decide(bridge.PolicyRequest(r)))
}
