package sqsfake

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
)

// Hooks for the fake's companions that play other AWS services against its queues (the SNS
// fake of package snsfake): a call made as a service principal, and Reset reaching them.
// The root package never imports a companion; the companion uses these.

// ServicePrincipal is an AWS service acting on a queue on behalf of one of its resources, as
// Amazon SNS sends a topic's notifications to a subscribed queue. A call made as one
// (AsService) is decided by the queue's Policy alone: the queue's owner rule does not admit
// it, whatever account the resource belongs to — SNS "uses a different account than the one
// that owns the SQS queue and the SNS topic" (https://github.com/aws/aws-sdk-go/issues/2415,
// AWS staff). A statement admits it with Principal "*", {"AWS":"*"} or {"Service": Service};
// its request context has aws:SourceArn and aws:SourceAccount.
type ServicePrincipal struct {
	// Service is the service principal's name, such as "sns.amazonaws.com"; required.
	Service string
	// SourceArn and SourceAccount are the resource the service acts for and its account:
	// aws:SourceArn and aws:SourceAccount ("" = absent).
	SourceArn, SourceAccount string
	// SenderID is the SenderId system attribute of the messages it sends; "" = the
	// SourceAccount (or the fake's WithSenderID when that is "" too).
	SenderID string
	// Region is the region the service acts in, the region of the queues it calls; "" =
	// the fake's (or, with AsService, the options' Region).
	Region string
}

// serviceCredentials carries a ServicePrincipal in an option set, as identityCredentials
// carries an Identity.
type serviceCredentials struct{ p ServicePrincipal }

func (c serviceCredentials) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "sqsfake-service", SecretAccessKey: "sqsfake", Source: "sqsfake.AsService"}, nil
}

type serviceMiddleware struct{ p ServicePrincipal }

func (serviceMiddleware) ID() string { return "SQSFakeAsService" }

func (m serviceMiddleware) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	return next.HandleInitialize(context.WithValue(ctx, serviceKey{}, m.p), in)
}

type serviceKey struct{}

// AsService returns an option that makes a call act as the service principal p, in the
// fake's region unless the options name another: pass it to a Fake method or to a client
// from Client, as ActAs. Such calls are in the call record with p.Service as their
// Caller.PrincipalARN, and they do not change LastError (it is the service's failure, not
// the test's). A p without a Service acts as the fake's own identity.
func AsService(p ServicePrincipal) func(*sqs.Options) {
	return func(o *sqs.Options) {
		if p.Service == "" {
			return
		}
		if p.Region != "" {
			o.Region = p.Region
		}
		o.Credentials = serviceCredentials{p}
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(serviceMiddleware{p}, middleware.After)
		})
	}
}

// WithService returns a context under which a call of the fake's methods acts as the
// service principal p, as with AsService but without copying the fake's options for the
// call: the cheap form for a companion that makes many calls. Use a context from it for one
// call at a time (it notes the call's number). A p without a Service returns ctx.
func WithService(ctx context.Context, p ServicePrincipal) context.Context {
	if p.Service == "" {
		return ctx
	}
	return context.WithValue(ctx, callNumberKey{}, &callNumber{door: DoorMethods, as: &identity{region: p.Region, service: p}})
}

// serviceActor is the actor of a service principal; f.mu is held.
func (f *Fake) serviceActor(id identity) *actor {
	sp := f.spaceOf(cmp.Or(id.service.SourceAccount, f.home.account), cmp.Or(id.region, f.home.region))
	a := &actor{sp: sp, principal: id.service.Service, service: id.service}
	f.actorList = append(f.actorList, a)
	a.num = uint32(len(f.actorList))
	return a
}

// OnReset registers fn to run at the end of every Reset, after the fake's own state is
// cleared and outside its locks (fn may call the fake), so that a companion keeping state
// beside the fake (snsfake's topics) is reset with it. Hooks run in the order registered;
// remove unregisters fn.
func (f *Fake) OnReset(fn func()) (remove func()) {
	f.resetMu.Lock()
	defer f.resetMu.Unlock()
	f.nextHook++
	n := f.nextHook
	f.resetHooks = append(f.resetHooks, resetHook{n, fn})
	return func() {
		f.resetMu.Lock()
		defer f.resetMu.Unlock()
		for i, h := range f.resetHooks {
			if h.n == n {
				f.resetHooks = append(f.resetHooks[:i:i], f.resetHooks[i+1:]...)
				return
			}
		}
	}
}

type resetHook struct {
	n  uint64
	fn func()
}

func (f *Fake) runResetHooks() {
	f.resetMu.Lock()
	hooks := append([]resetHook(nil), f.resetHooks...)
	f.resetMu.Unlock()
	for _, h := range hooks {
		h.fn()
	}
}

// Seed is the seed the fake derives its identifiers from (WithSeed; 0 by default), for a
// companion that makes identifiers of its own on the same footing.
func (f *Fake) Seed() uint64 { return f.seed }

// ServiceKey returns a 32-byte key for the authenticated identifiers a companion issues
// (snsfake's confirmation tokens), one per purpose, derived as the receipt handles' key is
// (ids.go): in memory from the seed and the reset epoch alone — the same seed gives the same
// key, and whoever knows the seed can compute it, as docs/signatures.md says of handles — and
// in signed mode (WithCredentials) from them and every secret of the credentials, so that a
// caller who knows the seed and its own secret cannot. It changes with every Reset.
func (f *Fake) ServiceKey(purpose string) [32]byte {
	f.mu.Lock()
	epoch := f.epoch
	f.mu.Unlock()
	msg := make([]byte, 0, 48+len(purpose))
	msg = append(msg, "sqsfake service key\x00"...)
	msg = append(msg, purpose...)
	msg = append(msg, 0)
	msg = binary.BigEndian.AppendUint64(msg, f.seed)
	msg = binary.BigEndian.AppendUint64(msg, epoch)
	secret := f.creds.handleSecret()
	if secret == nil {
		return sha256.Sum256(msg)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(msg)
	var key [32]byte
	copy(key[:], mac.Sum(nil))
	return key
}

// Partition is the partition of the fake's region ("aws", "aws-cn", "aws-us-gov"), as ARNs
// name it.
func (f *Fake) Partition() string { return f.partition }

// ResourcePolicy is a resource policy compiled by the fake's policy engine — the language
// and evaluation of queue policies (policy.go) — for a companion that keeps policies of
// its own, as snsfake does for topic policies.
type ResourcePolicy struct{ p *queuePolicy }

// CompileResourcePolicy compiles a policy document; it fails where SQS would refuse the
// document's form as a queue Policy. SQS's quotas (7 actions a statement, 8 KB…) do not
// apply: they are SQS's, and SNS's default topic policy alone names 8 actions.
func CompileResourcePolicy(doc string) (*ResourcePolicy, error) {
	p, err := compilePolicyForm(doc)
	if err != nil {
		return nil, err
	}
	return &ResourcePolicy{p}, nil
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

// The decisions.
const (
	// PolicyImplicitDeny: no statement allows the request.
	PolicyImplicitDeny PolicyDecision = iota
	// PolicyAllowed: a statement allows it and none denies it.
	PolicyAllowed
	// PolicyExplicitDeny: a statement denies it.
	PolicyExplicitDeny
)

// Decide evaluates the policy for r (no owner rule: the caller applies its own).
func (p *ResourcePolicy) Decide(r PolicyRequest) PolicyDecision {
	req := accessRequest{account: r.AccountID, principal: r.PrincipalARN, action: r.Action, resource: r.Resource,
		secureTransport: true, sourceArn: r.SourceArn, sourceAccount: r.SourceAccount, qualified: true}
	if r.Service != "" {
		req.account, req.principal, req.service = "", r.Service, true
	}
	switch p.p.evaluate(&req) {
	case allowed:
		return PolicyAllowed
	case explicitDeny:
		return PolicyExplicitDeny
	}
	return PolicyImplicitDeny
}

// Companions' calls in the fake's call record: a companion registers its operations, and
// each call of one is a ServiceCall — numbered with the fake's calls (CallCount, request
// ids, WaitForCalls, WaitIdle), in Calls with Operation set to its name, its error in
// LastError, and open to InjectFault.

// RegisterOperations registers a companion service's operations under the names its calls
// carry, the service's ID and the operation as the service's SDK names it, such as
// "SNS.Publish", so that InjectFault, CallFilter and the call assertions take them. A Fault
// on one works as on the fake's own operations, the companion applying it through its
// ServiceCall: Err fails the call without running, LoseResponse runs it and loses the
// answer, Latency holds the answer back on the fake's clock; FailEntries needs a batch
// operation (RegisterBatchOperation).
func (f *Fake) RegisterOperations(names ...string) {
	for _, n := range names {
		f.registerOperation(n, serviceOperation{})
	}
}

// RegisterBatchOperation registers a companion's batch operation, as RegisterOperations
// does, with entryIDs, which returns the Ids of the entries of a call's input (the params
// BeginServiceCall gets), for Fault.FailEntries.
func (f *Fake) RegisterBatchOperation(name string, entryIDs func(params any) []string) {
	f.registerOperation(name, serviceOperation{entryIDs: entryIDs})
}

// serviceOperation is a companion's operation as the faults know it.
type serviceOperation struct {
	entryIDs func(params any) []string // a batch operation's entry Ids; nil for others
}

func (f *Fake) registerOperation(name string, op serviceOperation) {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	if f.faults.service == nil {
		f.faults.service = make(map[string]serviceOperation)
	}
	f.faults.service[name] = op
}

func (f *Fake) serviceOperation(name string) bool {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	_, ok := f.faults.service[name]
	return ok
}

func (f *Fake) serviceOperationInfo(name string) serviceOperation {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	return f.faults.service[name]
}

// entryIDsOf returns the entry Ids of a batch operation's input, the fake's or a
// companion's.
func (f *Fake) entryIDsOf(op string, params any) []*string {
	if batchOperations[op] {
		return batchEntryIDs(params)
	}
	var ids []*string
	if get := f.serviceOperationInfo(op).entryIDs; get != nil {
		for _, id := range get(params) {
			ids = append(ids, &id)
		}
	}
	return ids
}

// ServiceCall is one call of a companion's operation, from BeginServiceCall to End. The
// companion applies the call's injected fault as the fake's own operations do: Refusal
// before running the operation, FailsEntry on each batch entry, Settle on its answer.
type ServiceCall struct {
	c call
	// Fault is the fault InjectFault gave the call, or nil.
	Fault *Fault
}

// Refusal returns the error the call fails with without running, when its fault says so
// (an Err, without LoseResponse or FailEntries), once the fault's Latency has passed on the
// fake's clock (or the caller's context ended: then its error); else nil: run the operation,
// then Settle. The error is the fault's as it is, for the companion to shape as its SDK does.
func (sc *ServiceCall) Refusal(ctx context.Context) error {
	if !sc.c.fault.refuses() {
		return nil
	}
	return sc.c.disturbance(ctx)
}

// FailsEntry reports whether the call's fault fails the batch entry with this Id
// (Fault.FailEntries: the entry takes no effect and is listed as failed), with the fault's
// Err for the entry's code and message (nil: the companion's internal error).
func (sc *ServiceCall) FailsEntry(id string) (bool, error) {
	fl := sc.c.fault
	if fl == nil || !fl.failing[id] {
		return false, nil
	}
	return true, fl.Err
}

// Settle applies the call's fault to the answer of the operation, which ran with the error
// err (nil: it succeeded): the fault's Latency holds the answer back on the fake's clock,
// LoseResponse replaces it with the fault's Err, or ErrLostResponse. It returns the error the
// caller gets (err, as it is, when the fault leaves the answer alone), or nil to answer.
func (sc *ServiceCall) Settle(ctx context.Context, err error) error { return sc.c.settle(ctx, err) }

// BeginServiceCall starts a call of the registered operation op through door, acting as
// who (nil: the fake's own identity), with its input params (which a fault's Match sees):
// it enters the call record and takes the first injected fault that matches. reached
// false records a call the SDK's client-side validation refused: it takes no fault. End it
// with End.
func (f *Fake) BeginServiceCall(op string, door Door, who *Identity, params any, reached bool) *ServiceCall {
	sc := &ServiceCall{c: call{f: f, op: op, door: door, reached: reached}}
	var id identity
	if who != nil {
		if id = identityFromPublic(*who); id.bad != nil {
			id = identity{}
		}
	}
	f.mu.Lock()
	sc.c.who = f.actorFor(&id)
	sc.c.id = f.startCall(op, door, sc.c.who, nil)
	if r := f.callRecord(sc.c.id); r != nil {
		r.flags |= callUnread // no SQS input to summarise
		f.calls.extra(r).opName = op
	}
	f.mu.Unlock()
	sc.c.req = sc.c.id.seq
	if reached {
		if fl := f.takeFault(op, params); fl != nil {
			sc.Fault = &fl.Fault
			sc.c.fault = fl
		}
	}
	return sc
}

// RequestID is the call's request id, numbered with the fake's own calls.
func (sc *ServiceCall) RequestID() string { return sc.c.requestID() }

// End records the call's outcome: err is the error its caller gets (nil: it succeeded),
// which becomes LastError.
func (sc *ServiceCall) End(err error) {
	sc.c.f.returned(&sc.c, nil, nil, err)
	if err != nil && !callerEnded(err) {
		sc.c.f.lastErr.Store(&err)
	}
}

// SignatureError is the refusal of a request whose SigV4 signature signed mode does not
// accept (VerifyRequest): AWS's error code (SignatureDoesNotMatch, InvalidClientTokenId,
// MissingAuthenticationToken, IncompleteSignature, MalformedQueryString, …), its message
// and the HTTP status AWS answers it with.
type SignatureError struct {
	Code    string
	Message string
	Status  int
}

// Error returns "Code: Message".
func (e *SignatureError) Error() string { return e.Code + ": " + e.Message }

// VerifyRequest is signed mode (WithCredentials) for a companion that serves another
// service's wire beside the fake's (snsfake's SNS wire on the server's port): it checks the
// request's SigV4 signature for service ("sns"), with every guard the fake's own wire
// applies (docs/signatures.md: the credential scope, the clock skew, a signed Host, one
// reading of the query and body), and returns the Identity the request acts as. body is the
// request's body, already read. signed is false, with no error, when the fake is not in
// signed mode: the companion then reads the caller as lenient mode does.
func (f *Fake) VerifyRequest(r *http.Request, body []byte, service string) (id Identity, signed bool, err error) {
	if f.creds == nil {
		return Identity{}, false, nil
	}
	w, serr := verifyFor(r, body, f.creds, time.Now(), service)
	if serr != nil {
		return Identity{}, true, &SignatureError{Code: serr.code, Message: serr.message, Status: serr.status}
	}
	return Identity{AccountID: w.account, Region: w.region, PrincipalARN: w.principal, OrgID: w.orgID}, true, nil
}
