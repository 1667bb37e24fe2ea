package sqsfake

import (
	"context"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake/internal/bridge"
)

// The root package's side of the companions' contract. Package companion offers it,
// documented, to whoever builds a companion on the fake (SNS, Lambda's trigger, an
// EventBridge or S3-notification fake); test authors never see it: these are methods of an
// unexported type, handed over once through internal/bridge as the package initialises. The
// root cannot import package companion (it names *Fake), so the methods take the fake they
// act on and speak in the root's exported types and the bridge's plain ones; package
// companion asserts bridge.Engine to the interface that lists them (companion/engine.go).
// Each is a thin call into the engine: the work, and its documentation of what the engine
// does, stays with the engine's own code (movehooks.go, catchup.go, service.go, inspect.go).

func init() { bridge.Engine = contract{} }

// contract is the value bridge.Engine holds.
type contract struct{}

func (contract) OnMove(f *Fake, fn func(now time.Time) (next time.Time)) (remove func()) {
	return f.onMove(fn)
}

func (contract) CatchesUp(f *Fake) bool          { return f.catchesUp() }
func (contract) CatchUp(f *Fake)                 { f.catchUpNow() }
func (contract) JoinStep(f *Fake) (leave func()) { return f.joinStep() }

func (contract) OnReset(f *Fake, fn func()) (remove func())  { return f.onReset(fn) }
func (contract) Epoch(f *Fake) uint64                        { return f.currentEpoch() }
func (contract) WithEpoch(n uint64) Option                   { return withEpoch(n) }
func (contract) Seed(f *Fake) uint64                         { return f.seed }
func (contract) ServiceKey(f *Fake, purpose string) [32]byte { return f.serviceKey(purpose) }
func (contract) Partition(f *Fake) string                    { return f.partition }
func (contract) AccountID(f *Fake) string                    { return f.account }
func (contract) Region(f *Fake) string                       { return f.region }
func (contract) Endpoint(f *Fake) string                     { return f.endpoint }

func (contract) NextVisible(f *Fake, ref string) (at time.Time, visible int, err error) {
	return f.nextVisible(ref)
}

func (contract) QueuePage(f *Fake, ref string, after uint64, limit int) (QueueInfo, bool, uint64, error) {
	p, err := f.pageOf(ref, after, limit)
	return p.QueueInfo, p.Truncated, p.Next, err
}

func (contract) QueueNames(f *Fake) []string { return f.allQueueNames() }
func (contract) QueueARNs(f *Fake) []string  { return f.allQueueARNs() }

func (contract) RegisterOperation(f *Fake, name string, entryIDs func(params any) []string) {
	f.registerOperation(name, serviceOperation{entryIDs: entryIDs})
}

func (contract) BeginServiceCall(f *Fake, op string, door Door, who *Identity, params any, reached bool) (bridge.Call, *Fault) {
	sc := f.beginServiceCall(op, door, who, params, reached)
	return sc, sc.fault
}

func (contract) VerifyRequest(f *Fake, r *http.Request, body []byte, service string) (Identity, bool, *bridge.SignatureError) {
	return f.verifyRequest(r, body, service)
}

func (contract) AsService(p bridge.ServicePrincipal) func(*sqs.Options) { return asService(p) }

func (contract) WithService(ctx context.Context, p bridge.ServicePrincipal) context.Context {
	return withService(ctx, p)
}

// CompilePolicy compiles a resource policy as SQS compiles a queue's Policy (its form, not
// its quotas) and returns the function that decides requests on it. The request is passed
// by value: a pointer to it would escape through the dynamic call and cost an allocation per
// decision.
func (contract) CompilePolicy(doc string) (func(bridge.PolicyRequest) bridge.Decision, error) {
	p, err := compilePolicyForm(doc)
	if err != nil {
		return nil, err
	}
	return func(r bridge.PolicyRequest) bridge.Decision { return decidePolicy(p, r) }, nil
}
