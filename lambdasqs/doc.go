// Package lambdasqs plays AWS Lambda's SQS event source mapping against a sqsfake queue, on the
// fake's clock: it receives messages as Lambda's pollers do, invokes the function's ordinary Go
// handler with an events.SQSEvent, and does with the answer what Lambda does — so a test can
// ask "a batch of 10, one message fails: what happens to the other nine?" with no network and
// no sleep.
//
//	trig, err := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{
//		FunctionResponseTypes: []string{lambdasqs.ReportBatchItemFailures},
//	})
//	trig.Advance(ctx, 2*time.Minute) // every invocation that ends by then is made and answered
//	trig.Invocations()               // time, message ids, outcome, reported failures
//
// # Driving it
//
// The trigger is synchronous: it polls only inside Poll and Advance, on the caller's goroutine,
// and invokes the handler there. That is the simplest deterministic design: there is nothing
// to wait for, no goroutine to leak and no real time involved. Advance moves the fake's clock
// (Fake.Advance) to each moment something is due — a message of the queue becomes visible
// again, a batching window ends, an invocation ends, a throttled batch is retried — and polls
// there. When it returns, every invocation due by then has started (up to the concurrency),
// and every invocation that has ended by the fake's current time has been answered and is in
// Invocations; an invocation that Sleeps past that time is still running, and its answer is
// applied by the Poll or Advance that reaches its end.
//
// A handler takes time in one of two ways. lambdasqs.Sleep(ctx, d) plays d of work without
// moving the clock: the handler returns at once in real time, but its invocation lasts d on
// the fake's clock, its answer is applied (and it appears in Invocations) when it ends, and
// meanwhile the mapping starts other invocations, up to its concurrency. Moving the fake's
// clock inside the handler (f.Advance) also works, but nothing else runs while it does: it
// plays a function that holds everything up. Sleeps add up, even when several goroutines of
// one handler call Sleep at once: parallel work inside a handler is played as sequential.
// The handler's context counts the time slept: it ends (Done closes, with
// context.DeadlineExceeded, and so do contexts derived from it) when the clock reaches the
// deadline less the time slept, or when a Sleep reaches the deadline.
//
// A handler must not call its own trigger's Poll or Advance: they run the handler, so the
// call would wait for itself. Called with the handler's context, they return an error; a
// handler moves time with Sleep or the fake's Advance.
//
// Receives use no long poll (WaitTimeSeconds 0): in a synchronous design a long poll on an
// empty queue would block the test. A receive that finds messages answers the same either way,
// and Advance polls at every moment a message becomes available, which is what Lambda's
// continuous long polling observes.
//
// # Concurrency, throttling and back-off
//
// Invocations run side by side only when they take time (Sleep). The mapping then runs at
// most Concurrency() at once, and receives a batch only when it has a free slot:
//
//   - It starts at five, and every full minute during which it keeps finding messages adds
//     300, up to 1,000 (R36); finding the queue empty with nothing running brings it back to
//     five. MaximumConcurrency caps it (R35). A batch that waits for a slot (after a
//     back-off took its slot away) is dropped, its messages returning to the queue, if it
//     waits until their visibility timeout, or until it could no longer run to the
//     function's timeout within it — the throttle retry's cut-off below.
//   - The 6 MB payload quota: the poller never sends a received message back (Lambda's
//     poller holds what it receives), so it receives only what fits. Where a receive could
//     return more than fits the batch being gathered — on a FIFO queue, into a batch that
//     has records already, or with fewer than three free slots (a record can be 4/3 of SQS's
//     1 MiB, its binary attributes being base64, so ten can fill three batches) — the
//     trigger sizes the receive's MaxNumberOfMessages from the sizes of the queue's
//     messages, read from the fake (largest first: a batch may end a record short of 6 MB;
//     the estimate leaves out JSON escapes, so a body full of them can take it past — see
//     Not modelled). Otherwise a receive that overflows the batch simply opens the next one,
//     which has a slot. So a message is never received without being invoked, and meets the
//     redrive policy only after reaching the handler. Lambda's docs do not say how its
//     pollers split at the quota.
//   - On a FIFO queue a group is in at most one batch in flight (R25): a receive never
//     returns messages of a group that has messages in flight (the fake's FIFO rule), and a
//     receive never takes more than fits one batch. So concurrency never exceeds the groups
//     with messages.
//   - After a failed invocation (an error, panic, timeout or invalid response) it backs off
//     by one, to no less than one, and each successful invocation gives one back (R14: "Lambda
//     gradually backs off, reducing the amount of concurrency allocated", no number given).
//     With ReportBatchItemFailures failures do not back off: "Lambda doesn't scale down message
//     polling when function invocations fail" (R15).
//   - Config.ReservedConcurrency is the function's own limit. "Event source mappings don't
//     account for reserved concurrency" (https://repost.aws/knowledge-center/lambda-sqs-scaling),
//     so a batch that would run more invocations than it allows is throttled: the handler is
//     not called, the record shows a Throttled attempt (TooManyRequestsException "Rate
//     Exceeded."), and the mapping backs off by one. The poller keeps the batch and retries it
//     after 1 s, then 2, 4, 8… (at most 5 minutes); "Lambda continues to retry the message
//     until the message's timestamp exceeds your queue's visibility timeout, at which point
//     Lambda drops the message" (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html):
//     at the end of the visibility timeout of the batch's first receive the poller drops it,
//     and its messages, visible again, count a receive the next time and meet the redrive
//     policy in time. A retry is not made when the invocation could run (to the function's
//     timeout) past that visibility timeout: the poller drops the batch then, so that its
//     messages are never received again while it runs. The same cut-off applies to a batch
//     that waited for a free slot. The docs give no retry interval for throttled SQS batches; 1 s doubling
//     to 5 minutes are Lambda's documented numbers for retrying throttled asynchronous
//     invocations (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async.html).
//
// Numbers the docs do not give, and the choice made: one slot per failure and per success
// (A9), a floor of one, the throttle retry schedule above and its cut-off a function timeout
// before the visibility timeout, the ramp's steps at whole minutes,
// and a reserved concurrency of at most 900 (PutFunctionConcurrency keeps 100 of the
// account's default 1,000 unreserved).
//
// # Cost
//
// BenchmarkInvokeBatchOf10 (receive 10, invoke, delete 10) measures about 14 µs a batch on a
// quiet shared 2-core machine, 71 allocations; the bar is 20 µs. A CPU profile splits it:
// about a fifth is this package (records, the invocation, its context and record), half the
// fake's ReceiveMessage — most of it the messages' system-attribute maps — and the rest
// DeleteMessageBatch. A 1,000-message drain with 1 % failures takes about 3 ms (bar: 50 ms).
//
// # Lambda's behaviour, point by point
//
// The rule ids (R…, A…) are those of the project's docs/evidence/SPEC-lambda.md, which quotes
// the AWS Lambda documentation for each.
//
//	Rule                                              Here
//	BatchSize default 10; 1–10,000; FIFO ≤ 10 (R38)   validated; FIFO > 10: InvalidParameterValueException
//	                                                  "Maximum batch size must be between 1 and 10 inclusive"
//	BatchSize > 10 needs a window (R39)               InvalidParameterValueException "Maximum batch window in
//	                                                  seconds must be greater than 0 if maximum batch size is
//	                                                  greater than 10" (message seen in aws/chalice#1778,
//	                                                  ansible-collections/amazon.aws#1995)
//	Window 0–300 (R40); not on FIFO (R34, A8)         FIFO with a window is refused: "Batching window is not
//	                                                  supported for FIFO queues" (seen in aws/aws-lambda-dotnet#1758)
//	FunctionResponseTypes (R43)                       0–1 items, ReportBatchItemFailures only
//	ScalingConfig.MaximumConcurrency 2–1,000 (R35)    validated; caps the invocations running at once (Sleep)
//	Five batches at first, +300 a minute, 1,000       Concurrency(): 5, +300 at each full minute of finding
//	(R36, A10)                                        messages, at most 1,000; back to 5 when the queue is empty
//	Reserved concurrency; throttles (errorhandling)   Config.ReservedConcurrency 0–900: a batch beyond it is
//	                                                  Throttled (TooManyRequestsException "Rate Exceeded."), the
//	                                                  handler not called; retried after 1, 2, 4… s (at most 5
//	                                                  min; no SQS number given); dropped at its visibility timeout,
//	                                                  so its messages return and count a receive
//	Back-off after errors and throttles (R14, A9)     one slot fewer per failed or throttled invocation (at
//	                                                  least 1), one more per success; no number given
//	No scale-down with ReportBatchItemFailures (R15)  function failures do not back off; throttles still do
//	Enabled (R37)                                     Config.Disabled, SetEnabled (also from a handler)
//	Visibility timeout < function timeout (R9, A11)   InvalidParameterValueException "Queue visibility timeout:
//	                                                  60 seconds is less than Function timeout: 120 seconds"
//	                                                  (seen in hashicorp/terraform-provider-aws#18099 and others);
//	                                                  equal is accepted
//	Out-of-range numbers                              ValidationException in AWS's model-validation form
//	                                                  ("1 validation error detected: …"); the exact text for
//	                                                  each member is not verified
//	Record fields (R1–R6)                             messageId, receiptHandle, body, md5OfBody,
//	                                                  md5OfMessageAttributes, attributes (ApproximateReceiveCount,
//	                                                  SentTimestamp, SenderId, ApproximateFirstReceiveTimestamp;
//	                                                  FIFO: SequenceNumber, MessageGroupId, MessageDeduplicationId;
//	                                                  AWSTraceHeader when present), messageAttributes in the
//	                                                  lower-camel shape with empty lists (A1), eventSource
//	                                                  "aws:sqs", eventSourceARN, awsRegion
//	Context (R7, R8)                                  deadline = invocation time + function timeout on the fake's
//	                                                  clock; lambdacontext with a deterministic AwsRequestID
//	                                                  and InvokedFunctionArn
//	Success deletes the batch (R10)                   DeleteMessageBatch of every record; an entry that fails
//	                                                  (an expired receipt handle) is recorded in DeleteFailed and
//	                                                  its message comes back: Lambda keeps polling
//	Error keeps the batch (R11, R12, R20)             nothing deleted; messages return after the visibility
//	                                                  timeout and the queue's redrive policy applies (R13, R23)
//	Panic (R21, A3)                                   a function error
//	Timeout (R22, A5)                                 the handler returned at or after its deadline on the fake's
//	                                                  clock: a failure, whatever it returned
//	ReportBatchItemFailures (R15, R16)                only the listed messages stay
//	Empty/unknown itemIdentifier (R18)                the whole batch fails (InvalidResponse)
//	Empty or null list, empty response (R19)          success
//	List without ReportBatchItemFailures (R17, A2)    ignored: success
//	FIFO order and hold-back (R24–R26, A4)            records in the order the queue hands them; with a partial
//	                                                  failure, every later message of a failed message's group is
//	                                                  kept too, whether or not the handler listed it
//	FilterCriteria (R27–R30)                          up to 5 filters (MaxFilters), ORed; a message matching none
//	                                                  is deleted without an invocation (Trigger.Filtered); a
//	                                                  malformed pattern: InvalidParameterValueException "Invalid
//	                                                  filter pattern definition." (seen in aws/aws-cdk#23057);
//	                                                  6 filters: InvalidParameterValueException (text not verified)
//	Batches (R31)                                     receives of up to 10, filled up to BatchSize, the window,
//	                                                  or the 6 MB payload (MaxPayload); a receive takes only what
//	                                                  fits, so nothing received goes back to the queue (R25)
//	Window + timeout > visibility timeout (R33)       each received message's visibility is set to window +
//	                                                  timeout + 30 s (ChangeMessageVisibilityBatch), so it is not
//	                                                  received again while its batch waits and runs
//
// # Filter patterns
//
// Config.FilterCriteria takes Lambda's filter rule syntax (EventBridge's) on the record's body,
// the one key SQS event source mappings filter on ("Amazon SQS event source mappings only
// support filtering on the body key", R28). A body that parses as JSON is matched by an object
// pattern on body; a body that does not is matched by a list pattern on body; the other
// combinations drop the message (R30). Inside a pattern, keys are ANDed, a list's matchers are
// ORed, and an array in the message matches when one of its elements does. Supported matchers:
// exact strings, numbers, booleans and null (exact, case-sensitive), {"prefix": s},
// {"suffix": s}, {"equals-ignore-case": s}, {"anything-but": value or list of strings/numbers},
// {"numeric": [op, n] or [op, n, op, n]} with = < <= > >=, and {"exists": bool}. Refused with an
// error of this package (not one of Lambda's, and not an *Error): wildcard, cidr, $or,
// prefix/suffix with an equals-ignore-case operand, anything-but with an operator, and record
// keys other than body — Lambda's guide and general filtering page also show attributes and
// messageAttributes, but what an SQS mapping does with them is not documented, so lambdasqs
// refuses them rather than guess.
//
// # Not modelled
//
//   - Other mappings or callers sharing the function's concurrency: the function's in-flight
//     invocations are this trigger's own.
//   - The low-traffic optimisation to as few as two concurrent batches (R36): the mapping
//     rests at five.
//   - The 20-second wait on low traffic with a window (R32, A6): the window ends exactly
//     MaximumBatchingWindowInSeconds after the batch's first receive.
//   - The payload size is estimated from the record's strings plus a fixed allowance for the
//     JSON around them; JSON escapes are not counted, so a batch of bodies rich in characters
//     JSON escapes (quotes, backslashes, control characters) can be over 6 MB as Lambda would
//     serialize it.
//   - A handler that blocks on its context without moving the clock blocks the test: nothing
//     else moves the fake's clock while the handler runs. Sleep is the way to wait.
//   - A handler that moves the clock (f.Advance) while other invocations are running delays
//     their answers: those due meanwhile are applied, with their own end times, when it
//     returns.
package lambdasqs
