package sqsfake

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"

	"github.com/sqsfake/sqsfake/internal/bridge"
)

// The engine's side of what companions — packages that play other AWS services against the
// fake's queues, such as snsfake — do through package companion (contract.go hands it over):
// calls made as a service principal, reset hooks, resource policies, their operations in the
// call record and under faults, and request verification for their wires. The root package
// never imports a companion, nor package companion.

// servicePrincipal is an AWS service acting on a queue on behalf of one of its resources
// (companion.ServicePrincipal, which documents it). A call made as one is decided by the
// queue's Policy alone: the owner rule does not admit it (https://github.com/aws/aws-sdk-go/issues/2415).
type servicePrincipal = bridge.ServicePrincipal

// serviceCredentials carries a servicePrincipal in an option set, as identityCredentials
// carries an Identity.
type serviceCredentials struct{ p servicePrincipal }

func (c serviceCredentials) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "sqsfake-service", SecretAccessKey: "sqsfake", Source: "companion.AsService"}, nil
}

type serviceMiddleware struct{ p servicePrincipal }

func (serviceMiddleware) ID() string { return "SQSFakeAsService" }

func (m serviceMiddleware) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	return next.HandleInitialize(context.WithValue(ctx, serviceKey{}, m.p), in)
}

type serviceKey struct{}

// asService returns an option that makes a call act as the service principal p, in the
// fake's region unless the options name another (companion.AsService). A p without a Service
// acts as the fake's own identity.
func asService(p servicePrincipal) func(*sqs.Options) {
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

// withService returns a context under which a call of the fake's methods acts as the service
// principal p (companion.WithService). A p without a Service returns ctx.
func withService(ctx context.Context, p servicePrincipal) context.Context {
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

// onReset registers fn to run at the end of every Reset, after the fake's own state is
// cleared and outside its locks (companion.OnReset); remove unregisters it.
func (f *Fake) onReset(fn func()) (remove func()) {
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

// serviceKey returns a 32-byte key for the authenticated identifiers a companion issues, one
// per purpose (companion.ServiceKey, which documents it), derived as the receipt handles' key
// is (ids.go): in memory from the seed and the reset epoch alone, in signed mode from them and
// every secret of the credentials. It changes with every Reset.
func (f *Fake) serviceKey(purpose string) [32]byte {
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

// decidePolicy evaluates a resource policy compiled by the fake's policy engine for r, with
// no owner rule: the companion applies its own (companion.ResourcePolicy.Decide).
func decidePolicy(p *queuePolicy, r bridge.PolicyRequest) bridge.Decision {
	req := accessRequest{account: r.AccountID, principal: r.PrincipalARN, action: r.Action, resource: r.Resource,
		secureTransport: true, sourceArn: r.SourceArn, sourceAccount: r.SourceAccount, qualified: true}
	if r.Service != "" {
		req.account, req.principal, req.service = "", r.Service, true
	}
	switch p.evaluate(&req) {
	case allowed:
		return bridge.Allowed
	case explicitDeny:
		return bridge.ExplicitDeny
	}
	return bridge.ImplicitDeny
}

// Companions' calls in the fake's call record: a companion registers its operations, and
// each call of one is a serviceCall — numbered with the fake's calls (CallCount, request
// ids, WaitForCalls, WaitIdle), in Calls with Operation set to its name, its error in
// LastError, and open to InjectFault (companion.RegisterOperations, BeginServiceCall).

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

// serviceCall is one call of a companion's operation, from beginServiceCall to End: the root
// side of a companion.ServiceCall (bridge.Call), which documents its methods. The companion
// applies the call's injected fault as the fake's own operations do: Refusal before running
// the operation, FailsEntry on each batch entry, Settle on its answer.
type serviceCall struct {
	c     call
	fault *Fault // the fault InjectFault gave the call, or nil
}

// Refusal returns the error the call fails with without running, when its fault says so,
// once the fault's Latency has passed on the fake's clock (or the caller's context ended:
// then its error); else nil.
func (sc *serviceCall) Refusal(ctx context.Context) error {
	if !sc.c.fault.refuses() {
		return nil
	}
	return sc.c.disturbance(ctx)
}

// FailsEntry reports whether the call's fault fails the batch entry with this Id, with the
// fault's Err.
func (sc *serviceCall) FailsEntry(id string) (bool, error) {
	fl := sc.c.fault
	if fl == nil || !fl.failing[id] {
		return false, nil
	}
	return true, fl.Err
}

// Settle applies the call's fault to the answer of the operation, which ran with the error
// err, as the fake's own operations' settle does.
func (sc *serviceCall) Settle(ctx context.Context, err error) error { return sc.c.settle(ctx, err) }

// beginServiceCall starts a call of the registered operation op through door, acting as who
// (nil: the fake's own identity), with its input params (which a fault's Match sees): it
// enters the call record and takes the first injected fault that matches, unless reached is
// false (the SDK's client-side validation refused it).
func (f *Fake) beginServiceCall(op string, door Door, who *Identity, params any, reached bool) *serviceCall {
	sc := &serviceCall{c: call{f: f, op: op, door: door, reached: reached}}
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
			sc.fault = &fl.Fault
			sc.c.fault = fl
		}
	}
	return sc
}

// RequestID is the call's request id, numbered with the fake's own calls.
func (sc *serviceCall) RequestID() string { return sc.c.requestID() }

// End records the call's outcome: err is the error its caller gets (nil: it succeeded),
// which becomes LastError.
func (sc *serviceCall) End(err error) {
	sc.c.f.returned(&sc.c, nil, nil, err)
	if err != nil && !callerEnded(err) {
		sc.c.f.lastErr.Store(&err)
	}
}
