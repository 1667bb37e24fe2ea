// Package lambdasqs plays AWS Lambda's SQS event source mapping against a sqsfake queue, on the
// fake's clock: it receives messages as Lambda's pollers do, invokes the function's ordinary Go
// handler with an events.SQSEvent, and does with the answer what Lambda does — so a test can
// ask "a batch of 10, one message fails: what happens to the other nine?" with no network and
// no sleep.
//
// # A first test
//
//	f := sqsfake.NewForTest(t)
//	// … create the queue "jobs" and send to it, or let the code under test send …
//	trig, err := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{
//		FunctionResponseTypes: []string{lambdasqs.ReportBatchItemFailures},
//	})
//	f.Advance(2 * time.Minute)              // the mapping polls all along, as Lambda does
//	trig.Invocations()                      // time, message ids, outcome, reported failures
//	trig.AssertOutcomes(t, []lambdasqs.Outcome{lambdasqs.PartialFailure, lambdasqs.Success})
//
// handler is the function's own handler, of either shape Handler names. Close deletes the
// mapping; a second mapping of one queue to one function (Config.FunctionName) is refused
// as Lambda refuses it, with a ResourceConflictException.
//
// What does not exist is reported as the queue fake reports it: New on a queue that does not
// exist returns Lambda's InvalidParameterValueException wrapping sqsfake.ErrNoQueue (its text
// names the queues there are), and AssertInvoked with a MessageId the fake never stored fails,
// whatever count it wants, listing the messages the trigger's invocations held.
//
// # How time moves
//
// Every move of the fake's clock drives every trigger on the fake — f.Advance, the trigger's
// own Advance, the *sqsfake.VirtualClock's Add (by the test or by code under test), and
// f.Advance on a clock given with sqsfake.WithClock — and triggers on queues of other
// accounts and regions too. A trigger polls at each instant of a move where it has
// something to do: messages sent or visible again, a batching window ending, an invocation
// ending, a throttled batch's retry, a handler's deadline. That is what Lambda's continuous
// polling sees, so one two-minute move gives the same invocations, at the same instants, as
// 120 one-second moves. A handler that sends to another trigger's queue has that trigger
// invoke at the same instant. A benbjohnson *clock.Mock the fake was given drives triggers
// the same way whether it is moved with f.Advance or with its own Add or Set: the fake
// follows the mock's own moves and runs every trigger at each instant the move passed
// through, with the fake's time pinned there (companion.OnMove), so the invocations are the same
// as f.Advance's; every Trigger method and every call into the fake catches up first, and a
// handler's calls with its ctx act at the instant being stepped. A handler on a mock reads
// the time with f.Now(), not the mock's own Now (which shows the mock's later time while the
// fake catches up). Its calls to the fake are the step's when made on the handler's own
// goroutine, with any context, or with its ctx from a goroutine it starts; one from a
// goroutine it starts with another context (context.Background()), or over HTTP through
// f.Handler(), waits for the catch-up that runs it and is reported stuck after
// Config.HandlerWait (docs/lambda.md). On any other clock, while it has something due, a
// trigger keeps one timer armed on the clock, which WaitForTimers counts.
//
// # Waiting
//
// Nothing needs to be polled: after New and some sends, any move of the clock invokes at the
// current instant with every message sent by then. To invoke without moving the clock, call
// Poll: it polls now and returns once every invocation it started has returned or waits on
// the fake's clock. WaitInvocations waits for a number of invocations to be recorded — for a
// handler the test itself unblocks (a channel it sends on), which returns in real time. Every
// waiting call honours its context, and no handler can hang a test: a handler that neither
// returns nor waits on its context within Config.HandlerWait (10 s of real time) is reported
// with a *StuckError naming the invocation and what to do, by the waiting call or, after a
// move, by Err.
//
// # Handlers that take time
//
// Each invocation runs its handler on a goroutine other than the caller's, as Lambda runs
// each in an execution environment of its own (one whose handler has returned runs the next
// invocation, as Lambda reuses a warm environment); handlers never run side by side in real
// time except while they wait on the clock, so a handler may keep package-level state
// without locks, as a function may on Lambda. A handler takes time in one of two ways:
//
//   - It waits on its context — select on ctx.Done(), or a downstream client that honours
//     ctx. The invocation then waits on the fake's clock: the waiting call returns while it
//     waits, and the move that reaches the function's timeout ends its context with
//     context.DeadlineExceeded and waits for the handler to return; the invocation is a
//     Timeout, nothing is deleted, and the messages return after their visibility timeout.
//     A handler counts as waiting once it has asked its context for Done and is blocked in a
//     select or on a channel; deriving a context and then working, or ctx.Err(), is not
//     waiting.
//   - Sleep(ctx, d) plays d of work without moving the clock: the handler returns at once in
//     real time, but its invocation lasts d on the fake's clock, its answer is applied when
//     it ends, and meanwhile the mapping starts other invocations, up to its concurrency.
//
// A handler must not move the fake's clock (the move runs it, so it would wait for itself: it
// is reported as stuck) nor call its own trigger's Poll, Advance or WaitInvocations (they
// return an error when called with the handler's context).
//
// # Concurrency
//
// The mapping runs at most Concurrency() invocations at once: five at first, 300 more for
// each minute it keeps finding messages, up to 1,000 or Config.MaximumConcurrency, one fewer
// for each failure it backs off from. Config.ReservedConcurrency throttles the batches beyond
// the function's own limit. A receive takes only what fits Lambda's 6 MB payload. In
// provisioned mode (Config.ProvisionedPollerConfig) it starts with ten invocations for each
// of its minimum pollers and scales by 1,000 a minute up to ten for each of its maximum
// (Example_provisionedMode).
//
// # Reference
//
// docs/lambda.md has the rest: each of Lambda's rules and how the trigger plays it (with the
// ids of the project's docs/evidence/SPEC-lambda.md, which quotes the AWS documentation), the
// throttling and back-off numbers and where they come from, the filter pattern syntax
// supported, what is not modelled, and what it costs.
package lambdasqs
