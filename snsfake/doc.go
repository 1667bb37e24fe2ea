// Package snsfake is Amazon SNS in memory for Go tests, delivering into the queues of a
// *sqsfake.Fake on its clock: topics (standard and FIFO), sqs subscriptions with raw
// delivery and filter policies, Publish and PublishBatch — so a test can publish once and
// assert what each subscribed queue received, and why a queue did not.
//
//	f := sqsfake.New()
//	topics := snsfake.New(f)
//	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
//	f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("billing")})
//	// The queue's Policy must let the topic send, as on AWS: SubscribeQueue adds the
//	// statement the SQS console adds, then subscribes the queue.
//	topics.SubscribeQueue(ctx, *tp.TopicArn, "billing", nil)
//	out, _ := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("hi")})
//	snsfake.AssertDelivered(t, topics, *out.MessageId, "billing")
//
// The name avoids a clash with the SDK's package sns in the same file. The SDK's sns and sqs
// both have a package types: a file that uses both imports one under another name, as this
// package's examples do (snstypes "github.com/aws/aws-sdk-go-v2/service/sns/types").
//
// Without the policy a delivery is lost, as on AWS, and Publish still succeeds: Deliveries
// and Publication say why, AssertDelivered prints it, and the server's -v log
// (cmd/sqsfake) writes a line for each delivery a queue refused. From the AWS CLI or boto3,
// docs/wire.md ("SNS into a queue") sets the same policy with set-queue-attributes.
//
// The inspections follow the queue fake's rule: one that names a topic, a queue or a
// publication that does not exist returns an error wrapping ErrNoTopic, sqsfake.ErrNoQueue
// or ErrNoPublication that lists what there is (and what the name is, if the fake knows it
// otherwise), never an empty result; the assertions fail with that text.
//
// # Built on the queue fake
//
// A Fake shares its sqsfake.Fake's clock (timestamps, the FIFO deduplication window), seed
// (MessageIds, subscription ARNs, tokens and request ids are the same run after run), its
// account and region (New's defaults; topics live in the account and region of the caller,
// as queues do), identities (ActAs here takes the same sqsfake.Identity), and Reset (the
// queue fake's Reset empties the topics too). A delivery is a SendMessage call on the queue
// fake made as the service principal sns.amazonaws.com (companion.WithService), so it is in
// the queue fake's call record and timelines, its faults apply to it (a fault injected on
// SendMessage fails the delivery, which the fake records as lost), and the queue's Policy
// decides it with the fake's policy engine.
//
// The SNS calls are in the queue fake's call record too (companion.ServiceCall), numbered
// with its calls — CallCount, WaitForCalls, WaitIdle, request ids — with Operation "SNS." and
// the operation ("SNS.Publish"), their door and caller, and an SNS refusal becomes LastError.
// sqsfake.CallFilter and the call assertions (AssertCallCount, AssertLastCallError, …) name
// them so too. sqsfake.InjectFault takes them with every kind of fault it has for SQS's
// operations, applied the same way through every door: Err (snsfake.ServiceError for an SNS
// error) fails the call without running it; LoseResponse runs it (the message is published
// and delivered) and the caller gets Err or sqsfake.ErrLostResponse — the SNS wire drops the
// connection instead; Latency holds the answer back until the fake's clock has moved on by
// that much (WaitForPollers counts the call); FailEntries on "SNS.PublishBatch" fails the
// entries it picks, which are not published and are listed in Failed with Err's code and
// message (SNS's InternalError, SenderFault false, when Err is nil or not an SNS error).
// Match (which sees the *sns.<Operation>Input) and Times work as on SQS's operations.
//
// # Doors
//
// The fake's methods have the signatures of *sns.Client's (service/sns v1.48.0), checked by
// reflection, for the 21 operations of topics, subscriptions, publishing, tags, topic
// permissions and data-protection policies. The 21 SMS, mobile-push and
// platform-application operations (CreatePlatformApplication, CreatePlatformEndpoint,
// *SMS*, *PhoneNumber*, ListOriginationNumbers, …) are not in the method set: the fake
// delivers only into its queues. Client returns a real *sns.Client answered by those
// methods in memory; calling one of the missing operations through it returns an error that
// names it. The door-1 methods reproduce the SDK's client-side validation, byte for byte.
//
// Errors are the SDK's: *smithy.OperationError (ServiceID "SNS") around an
// *awshttp.ResponseError with SNS's HTTP status and request id, around the typed error of
// service/sns/types whose code SNS answered — v1.48.0 maps a code to its type whatever the
// operation — or *smithy.GenericAPIError for a code without one. Texts are SNS's as recorded
// in SPEC-sns.md; where the spec says UNVERIFIED the choice is documented where it is made
// (topics.go, subscriptions.go, publish.go, internal/eventpattern).
//
// # Topics and subscriptions
//
// CreateTopic is idempotent on what is sent; GetTopicAttributes answers the full set with
// SNS's default policy and EffectiveDeliveryPolicy; a DeliveryPolicy (topic or
// subscription) is checked, stored normalised and completed into EffectiveDeliveryPolicy as
// AWS does (deliverypolicy.go, SPEC-sns.md §14.5); ListTopics pages by 100 in ARN order;
// tags, AddPermission/RemovePermission (the policy re-serialised with sorted keys), and
// Get/PutDataProtectionPolicy (stored, not applied). A topic's Policy is decided with the
// queue fake's policy engine: the owner's account acts unless it explicitly denies; another
// account only where it allows SNS:<Action>.
//
// An sqs subscription's endpoint, and a RedrivePolicy's deadLetterTargetArn, must be an SQS
// queue ARN as AWS names a queue — arn:<partition>:sqs:<region>:<12-digit account>:<a queue
// name SQS accepts>, the partition the region's — or SNS refuses it ("Invalid parameter: SQS
// endpoint ARN", "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn");
// deliveries go to the queue those fields name. An sqs subscription of a queue in the
// subscriber's own account is confirmed at once; one of another account's queue is pending
// until ConfirmSubscription with the token of the SubscriptionConfirmation SNS delivers into
// that queue (also visible as SubscriptionInfo.Token), or a GET of its SubscribeURL. A token
// confirms the subscription it was made for, and no other, for 2 days; it authenticates
// itself with a tag keyed by the queue fake's seed in memory (the same seed gives the same
// tokens; whoever knows the seed can make them) and by the seed and every secret of
// sqsfake.WithCredentials in signed mode (nobody can make one the fake did not hand out).
// See tokens.go for where a token may be presented. An http or https subscription is
// pending until its endpoint confirms it (see HTTP/S endpoints below); email and email-json
// subscriptions stay pending (no confirmation is sent anywhere); sms, lambda, application
// and firehose are confirmed and receive nothing. Subscription attributes: RawMessageDelivery, FilterPolicy,
// FilterPolicyScope, RedrivePolicy, DeliveryPolicy (http/https), SubscriptionRoleArn
// (firehose), ReplayPolicy (FIFO topics).
//
// # Publishing and delivery
//
// Publish and PublishBatch validate as SNS does (a refused batch entry fails the whole
// call; Failed is empty, as in every recording, but for an injected FailEntries fault) and
// deliver at the publish instant, synchronously, into every confirmed sqs subscription whose
// filter policy matches, in the order the subscriptions were made. The deliveries hold up no
// other call — of another topic, another account, or this topic's other operations — but
// the next publish to the same topic, which waits for them so that a topic's publications
// arrive in the order they were made. The notification envelope is AWS's byte for byte:
// pretty-printed, fields in AWS's order, millisecond timestamps, MessageAttributes one a
// line in key order, UnsubscribeURL; standard topics' envelopes are signed (SignatureVersion
// 1, SHA1withRSA, or 2, SHA256withRSA) with a fixed test key whose certificate is
// SigningCertificate (see sign.go); FIFO envelopes carry SequenceNumber and no signature.
// With RawMessageDelivery the body is the message and its attributes become SQS message
// attributes. MessageStructure=json sends the "sqs" part (else "default"); its envelope has
// no MessageAttributes. FIFO topics deduplicate for 5 minutes on the clock (content-based:
// SHA-256 of the message), topic-wide or per group (FifoThroughputScope), a duplicate getting
// the first MessageId and SequenceNumber and reaching no queue; FIFO queues get the group
// and deduplication ids. A standard topic's MessageGroupId is passed to the queue (fair
// queues). A Publish or PublishBatch over the wire with an X-Amzn-Trace-Id header gives
// the messages it delivers into queues that AWSTraceHeader system attribute, as AWS does
// (a header SQS would refuse as one is left out).
//
// A delivery the queue refuses — no queue (or a deleted one), a Policy that does not admit
// sns.amazonaws.com with the topic as aws:SourceArn, a message SQS rejects — goes to the
// subscription's RedrivePolicy queue with the body and attributes it would have had, or is
// lost; Publish succeeds either way, as on AWS. Published, Publication and Deliveries show
// every outcome with its reason; AssertPublished, AssertDelivered and AssertNotDelivered
// print them. That publication record is bounded (record.go): it keeps the newest
// publications in about DefaultRecordBytes (64 MiB; WithRecordBytes changes it, and
// cmd/sqsfake keeps 32 MiB), each with its message whole but only the first
// RecordedBodyBytes (4 KiB) of each delivery's body (Delivery.BodySize is its length; the
// queue holds the message) and no body for a lost delivery. A test of ordinary size sees
// every publication; a longer one sees the newest.
//
// # HTTP/S endpoints
//
// An http or https subscription gets SNS's POSTs (SPEC-sns.md §14): at Subscribe a
// SubscriptionConfirmation, and after it is confirmed — by a GET of its SubscribeURL or
// ConfirmSubscription with its Token — a Notification for each publish its filter policy
// matches, with AWS's headers (x-amz-sns-message-type, -message-id, -topic-arn,
// -subscription-arn, -rawdelivery; the DeliveryPolicy's Content-Type) and the signed envelope,
// or the raw message. In a test an endpoint is an http.Handler registered for its URL
// (HandleEndpoint), called in memory: no network, and a handler that hangs or panics cannot
// hang the test (HTTPDelivery.HandlerWait); HTTPClient reaches the fake in memory, for the
// handler's GET of SubscribeURL or SigningCertURL. SetHTTPDelivery's Network POSTs to other
// URLs over real HTTP, loopback only unless AllowHost says so (cmd/sqsfake does this).
//
// The first attempt is made at the publish instant, before Publish returns; each retry when
// the fake's clock reaches it, however the clock moves — f.Advance, the VirtualClock's own
// Add, a benbjohnson mock's own Add or Set, the server's /_sqsfake/advance — exactly as
// package lambdasqs's triggers follow it, never in real time. A 2xx or 3xx answer delivers;
// no answer (a refused or dropped connection, 15 seconds without an answer), 429, 5xx or
// 1xx is retried by the effective DeliveryPolicy (the subscription's, else the topic's —
// always the topic's with disableSubscriptionOverrides — else 3 retries 20 s apart) in its
// four phases: immediate, pre-backoff, backoff by the policy's function, post-backoff; another
// 4xx is a permanent failure. When SNS gives up (the policy exhausted, a 4xx, the message's
// hour of lifetime over) the notification goes to the subscription's RedrivePolicy queue with
// the body the endpoint would have got, or is discarded. The throttle policy's
// maxReceivesPerSecond holds attempts to the next second of the fake's clock. Each
// attempt is an "SNS.Deliver" call in the queue fake's call record, so sqsfake.InjectFault
// can fail it (EndpointStatus answers for the endpoint; a Latency of 15 s or more is a
// timeout) and a test can play the whole schedule without an endpoint that fails. Each
// Delivery lists its Attempts (instant, phase, status or error, result), its Outcome and
// why, and NextAttempt while Retrying; AssertOutcome and AssertAttempts assert on them and
// print every attempt when they fail. While a delivery waits for its next attempt, the fake
// keeps one timer armed on a VirtualClock (which WaitForTimers counts) at that instant.
//
// Where the fake chooses (SPEC-sns.md §14): no jitter (AWS jitters its retries; the fake's
// schedule is exact, so the same calls and clock moves give the same attempts); the four
// backoff curves (AWS publishes only a graph; see RetryPolicy.Retries); a 4xx other than 429
// dead-letters (AWS documents 4xx as a permanent failure and client errors as
// dead-lettered); the policy is read at the first attempt; a confirmation is never
// dead-lettered. A webhook broker that also retries 429 and opens a circuit breaker after five
// failures differs from SNS in the second point: SNS has no circuit breaker — every message
// runs its own schedule, and failures never disable a subscription.
//
// # Cost
//
// A publish costs its SNS checks and bookkeeping plus one SendMessage per delivery
// (bench_test.go, compared at the same heap). The deliveries of one publication share what
// they can: the filter's view of the attributes, the envelope's timestamp and signature, and
// in the queue fake one stored copy of identical attributes (and its MD5) across a service
// principal's sends; the publication's record is carved from shared chunks. Measured
// interleaved on a shared 2-core machine (test binaries run alternately at -test.cpu 1, six
// rounds, median of the per-run ratios): a publish to one raw subscription took 0.8× a
// SendMessage with the same body and attributes, 1.4× when the attributes differ from one
// publish to the next (bar: 2×); a fan-out to 10 filtered raw subscriptions 3.4×, 4.1× with
// varying attributes (bar: 12×; its floor was 10 SendMessages before deliveries shared the
// stored attributes). A filter-policy match of 5 keys costs about 0.3 µs with no allocation
// (internal/eventpattern's BenchmarkMatchAttributes). An enveloped delivery of a standard
// topic is signed with the fake's RSA-1024 test key: about 0.3 ms a publish on that machine,
// once for all its enveloped subscriptions.
//
// An HTTP/S delivery to an in-memory endpoint costs about what a delivery into a queue does:
// its POST is an "SNS.Deliver" call in the record, a request, and the handler on a goroutine
// of its own. Measured as the process's CPU time per publish (cpu-ns/op, so that other work
// on the shared 2-core machine weighs less), in one run at -test.cpu 1, three rounds:
// BenchmarkPublishOneRawHTTPSubscription 8.9–10.1 µs against
// BenchmarkPublishOneRawSubscription 7.0–11.1 µs, 0.9–1.3× (bar: 3×);
// BenchmarkHTTPScheduleToExhaustion, the guide's sample policy (51 attempts over 37
// minutes, the endpoint failing each) played to its end by one Advance, 0.32–0.37 ms
// (bar: 1 ms).
//
// # Bounds
//
// What the fake keeps and spends is bounded, and a legitimate client never meets a bound
// AWS does not have; where it meets one of AWS's, it gets AWS's answer:
//
//   - A request body up to sqsfake.MaxRequestBytes (8 MiB) is read whole and served; a
//     longer one is refused with HTTP 413 (RequestEntityTooLarge for SNS, the queue fake's
//     own for SQS). No valid request comes near it.
//   - The wire's decoder is linear in the request, ignores parameter names over 256 bytes
//     (none of SNS's is), and stops when the client has gone away (RequestCanceled, answered
//     to nobody); what it hands an operation is copied, so no request's body is kept.
//   - In signed mode a request is authenticated before its Action is read. An unknown Action
//     is recorded as SNS.<its first 256 bytes>… and quoted to 2 KiB; every error quotes at
//     most 2 KiB of what a client sent, and the call record keeps 4 KiB of a refusal.
//   - AWS's quotas: 100,000 standard and 1,000 FIFO topics an account and region
//     (TopicLimitExceeded); 12,500,000 subscriptions a standard topic and 100 a FIFO one
//     (SubscriptionLimitExceeded); 200 filter policies a topic and 10,000 a subscriber's
//     account (FilterPolicyLimitExceeded, from Subscribe or SetSubscriptionAttributes; a
//     subscription without one is still made); a filter policy of 256 KB, 5 keys and 150
//     combinations counted with nesting depth; 50 tags a topic; a topic Policy of 30 KiB,
//     a DisplayName of 100 characters, KMS keys and role ARNs of 2,048 (the other policy
//     documents 30 KiB as well: topics.go).
//   - The publication record: the newest publications in DefaultRecordBytes (32 MiB on
//     cmd/sqsfake), a delivery's first RecordedBodyBytes, no body for a lost delivery.
//   - A confirmation token is valid 2 days; only its own subscription, and only with its
//     own topic (tokens.go).
//   - A wildcard filter costs time linear in pattern and value (internal/eventpattern), and
//     a publish's deliveries hold up only the next publish to the same topic.
//
// # Not modelled
//
//   - SMS, mobile push, platform applications, and delivery to email/lambda/firehose
//     endpoints (subscriptions are kept, nothing is sent).
//   - SNS's retries of server-side failures: a delivery SQS fails is lost (or dead-lettered)
//     at once.
//   - KMS (KmsMasterKeyId is stored), message archiving and replay (ArchivePolicy and
//     ReplayPolicy are stored), delivery status logging (the feedback attributes are
//     stored).
//   - AuthenticateOnUnsubscribe and the UnsubscribeConfirmation it leads to (to an HTTP/S
//     endpoint too), and a second SubscriptionConfirmation on a repeated Subscribe.
//   - AWS.SNS.* message attributes; X-Ray tracing (TracingConfig is stored), but for the
//     trace header a wire Publish carries, which reaches the queues (above).
package snsfake
