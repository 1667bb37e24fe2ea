package companion

import (
	"context"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/internal/bridge"
)

// engine is the root package's side of the contract, as package sqsfake hands it over
// through internal/bridge (sqsfake's contract.go): each method takes the fake it acts on.
type engine interface {
	OnMove(f *sqsfake.Fake, fn func(now time.Time) (next time.Time)) (remove func())
	CatchesUp(f *sqsfake.Fake) bool
	CatchUp(f *sqsfake.Fake)
	JoinStep(f *sqsfake.Fake) (leave func())

	OnReset(f *sqsfake.Fake, fn func()) (remove func())
	Epoch(f *sqsfake.Fake) uint64
	WithEpoch(n uint64) sqsfake.Option
	Seed(f *sqsfake.Fake) uint64
	ServiceKey(f *sqsfake.Fake, purpose string) [32]byte
	Partition(f *sqsfake.Fake) string
	AccountID(f *sqsfake.Fake) string
	Region(f *sqsfake.Fake) string
	Endpoint(f *sqsfake.Fake) string

	NextVisible(f *sqsfake.Fake, ref string) (at time.Time, visible int, err error)
	QueuePage(f *sqsfake.Fake, ref string, after uint64, limit int) (sqsfake.QueueInfo, bool, uint64, error)
	QueueNames(f *sqsfake.Fake) []string
	QueueARNs(f *sqsfake.Fake) []string

	RegisterOperation(f *sqsfake.Fake, name string, entryIDs func(params any) []string)
	BeginServiceCall(f *sqsfake.Fake, op string, door sqsfake.Door, who *sqsfake.Identity, params any, reached bool) (bridge.Call, *sqsfake.Fault)
	VerifyRequest(f *sqsfake.Fake, r *http.Request, body []byte, service string) (sqsfake.Identity, bool, *bridge.SignatureError)

	AsService(p bridge.ServicePrincipal) func(*sqs.Options)
	WithService(ctx context.Context, p bridge.ServicePrincipal) context.Context
	CompilePolicy(doc string) (func(bridge.PolicyRequest) bridge.Decision, error)
}

// eng is the engine. Package sqsfake, which this package imports, has set bridge.Engine by
// the time this package initialises; a root package whose contract lacks a method listed
// above fails here, in every program and test that imports this package.
var eng = bridge.Engine.(engine)
