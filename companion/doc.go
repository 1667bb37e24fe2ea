// Package companion is how to build a companion on the fake: a package that plays another AWS
// service against the queues of a *sqsfake.Fake, on its clock — as package snsfake plays SNS
// topics that deliver into queues, package lambdasqs Lambda's SQS trigger, and as an
// EventBridge rule or an S3 bucket's event notifications could be played. A test author does
// not need this package; package sqsfake's own documentation is theirs.
//
// A companion acts on the queues through the fake's user surface — its SQS methods, Client,
// Handler, Now, the inspections — like any code under test, and through this package joins
// what the fake keeps for the test: its call record and faults, its Reset, its clock's moves,
// its identities and policies. The root package never imports a companion, nor this package;
// the companion imports both.
//
// # The call record and faults
//
// RegisterOperations (RegisterBatchOperation for a batch operation) names the companion's
// operations, such as "SNS.Publish", for sqsfake.Fault and sqsfake.CallFilter. Each call of
// one is a ServiceCall from BeginServiceCall to End: numbered with the fake's own calls
// (f.CallCount, request ids, f.WaitForCalls, f.WaitIdle), in f.Calls, its error in
// f.LastError. The companion applies the fault f.InjectFault gave the call as the fake's own
// operations do: Refusal before it runs, FailsEntry for each batch entry, Settle on its answer.
//
// # Acting as a service
//
// A companion's calls into the fake are made as its service principal (ServicePrincipal):
// AsService for one call's options, WithService for a context (the cheap form). The queue's
// Policy alone decides them, as on AWS, and the call record names the service. A companion
// that keeps resource policies of its own (an SNS topic's) compiles them with
// CompileResourcePolicy and decides requests with the fake's policy engine.
//
// # The clock
//
// OnMove registers a function the fake calls at every instant a move of its clock passes
// through, however the clock is moved: f.Advance, a *sqsfake.VirtualClock's own Add, and a
// benbjohnson *clock.Mock's own Add or Set, which the fake follows after the fact
// (CatchesUp; CatchUp brings it up to the mock's time). On such a mock, calls that are part
// of a step — made with a context marked by InStep (StepKey), or on a goroutine marked with
// JoinStep — act at the instant being stepped.
//
// # Reset, naming, and cheap inspections
//
// OnReset registers a function the fake's Reset runs after clearing its own state; Epoch
// counts the resets (WithEpoch starts a replacement fake at a later one). Seed, AccountID,
// Region, Partition and Endpoint let a companion make identifiers, ARNs and
// URLs as the fake makes them; ServiceKey keys the identifiers it authenticates (snsfake's
// confirmation tokens) as the fake keys its receipt handles. NextVisible and Epoch are what a poller beside the fake reads
// inside its steps without rendering a queue; Page, QueueNames and QueueARNs what a server or
// console reads to show many queues.
//
// # Its own wire
//
// A companion that serves its service's wire beside the fake's (snsfake's SNS wire on the
// same port in cmd/sqsfake) checks signatures with VerifyRequest when the fake is in signed
// mode (sqsfake.WithCredentials), refusing with AWS's SignatureError.
//
// ARCHITECTURE.md in the repository says why this is a package of its own, and which package
// may import which.
package companion
