// The AWS SDK for JavaScript v3 (@aws-sdk/client-sqs and @aws-sdk/client-sns, pinned in
// package.json and package-lock.json) against a running sqsfake server.
//
// Usage: node flow.mjs http://127.0.0.1:PORT [http://127.0.0.1:SIGNED_PORT]
//
// The first server runs unsigned; the second, when given, runs with -credentials holding the
// key AKIAJSSDK / js-secret for account 123456789012. It exits 0 and prints "ok" when every
// check passes; otherwise it throws.

import assert from "node:assert/strict";
import crypto from "node:crypto";

import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  SQSServiceException,
} from "@aws-sdk/client-sqs";
import {
  AddPermissionCommand,
  ConfirmSubscriptionCommand,
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  InvalidParameterException,
  ListSubscriptionsByTopicCommand,
  ListSubscriptionsCommand,
  ListTagsForResourceCommand,
  ListTopicsCommand,
  NotFoundException,
  PublishBatchCommand,
  PublishCommand,
  RemovePermissionCommand,
  SetSubscriptionAttributesCommand,
  SetTopicAttributesCommand,
  SNSClient,
  SNSServiceException,
  SubscribeCommand,
  TagResourceCommand,
  UnsubscribeCommand,
  UntagResourceCommand,
} from "@aws-sdk/client-sns";

const [endpoint, signedEndpoint] = process.argv.slice(2);
assert.ok(endpoint, "usage: node flow.mjs ENDPOINT [SIGNED_ENDPOINT]");
const ACCOUNT = "123456789012";
const REGION = "us-east-1";

const config = (ep, accessKeyId = "test", secretAccessKey = "test") => ({
  endpoint: ep,
  region: REGION,
  credentials: { accessKeyId, secretAccessKey },
  maxAttempts: 1,
});
const sqs = new SQSClient(config(endpoint));
const sns = new SNSClient(config(endpoint));

// rejects runs a command that must fail and returns the error the SDK throws.
async function rejects(client, command, Class) {
  try {
    await client.send(command);
  } catch (e) {
    assert.ok(e instanceof Class, `${command.constructor.name}: want ${Class.name}, got ${e.name}: ${e.message}`);
    return e;
  }
  throw new assert.AssertionError({ message: `${command.constructor.name} succeeded; want ${Class.name}` });
}

// queueFor makes a queue whose policy lets SNS deliver from any topic of the account.
async function queueFor(name, attrs = {}) {
  const arn = `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`;
  const policy = {
    Version: "2012-10-17",
    Statement: [{
      Effect: "Allow",
      Principal: { Service: "sns.amazonaws.com" },
      Action: "sqs:SendMessage",
      Resource: arn,
      Condition: { ArnLike: { "aws:SourceArn": `arn:aws:sns:${REGION}:${ACCOUNT}:*` } },
    }],
  };
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { ...attrs, Policy: JSON.stringify(policy) } }));
  return { url: QueueUrl, arn };
}

async function receiveAll(url, max = 10) {
  const out = await sqs.send(new ReceiveMessageCommand({
    QueueUrl: url,
    MaxNumberOfMessages: max,
    MessageAttributeNames: ["All"],
    MessageSystemAttributeNames: ["All"],
  }));
  return out.Messages ?? [];
}

// --- SQS alone -------------------------------------------------------------------------

{
  const { QueueUrl: url } = await sqs.send(new CreateQueueCommand({ QueueName: "js-jobs", Attributes: { VisibilityTimeout: "30" } }));
  assert.equal(url, `${endpoint}/${ACCOUNT}/js-jobs`);
  assert.equal((await sqs.send(new GetQueueUrlCommand({ QueueName: "js-jobs" }))).QueueUrl, url);
  assert.deepEqual((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: "js-" }))).QueueUrls, [url]);

  // The SDK checks MD5OfMessageBody and MD5OfMessageAttributes of every send and receive.
  const sent = await sqs.send(new SendMessageCommand({
    QueueUrl: url,
    MessageBody: "hello from JS",
    MessageAttributes: {
      kind: { DataType: "String", StringValue: "greeting" },
      n: { DataType: "Number", StringValue: "42" },
      blob: { DataType: "Binary", BinaryValue: new Uint8Array([0, 1, 2, 255]) },
    },
  }));
  assert.match(sent.MessageId, /^[0-9a-f-]{36}$/);
  assert.equal(sent.MD5OfMessageBody, crypto.createHash("md5").update("hello from JS").digest("hex"));

  const batch = await sqs.send(new SendMessageBatchCommand({
    QueueUrl: url,
    Entries: [
      { Id: "a", MessageBody: "b1", MessageAttributes: { k: { DataType: "String.custom", StringValue: "v" } } },
      { Id: "b", MessageBody: "b2", DelaySeconds: 900 },
    ],
  }));
  assert.deepEqual(batch.Successful.map((e) => e.Id), ["a", "b"]);
  assert.equal(batch.Failed, undefined);

  const got = await receiveAll(url);
  assert.deepEqual(got.map((m) => m.Body), ["hello from JS", "b1"]);
  const [m] = got;
  assert.equal(m.MessageId, sent.MessageId);
  assert.equal(m.MessageAttributes.kind.StringValue, "greeting");
  assert.equal(m.MessageAttributes.n.StringValue, "42");
  assert.deepEqual([...m.MessageAttributes.blob.BinaryValue], [0, 1, 2, 255]);
  assert.equal(m.Attributes.ApproximateReceiveCount, "1");

  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: got[1].ReceiptHandle, VisibilityTimeout: 0 }));
  await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle }));
  const again = await receiveAll(url);
  assert.deepEqual(again.map((x) => x.Body), ["b1"]);
  const del = await sqs.send(new DeleteMessageBatchCommand({
    QueueUrl: url,
    Entries: [{ Id: "ok", ReceiptHandle: again[0].ReceiptHandle }, { Id: "bad", ReceiptHandle: "not-a-handle" }],
  }));
  assert.deepEqual(del.Successful.map((e) => e.Id), ["ok"]);
  assert.deepEqual(del.Failed.map((e) => [e.Id, e.Code, e.SenderFault]), [["bad", "ReceiptHandleIsInvalid", true]]);

  const attrs = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes;
  assert.equal(attrs.VisibilityTimeout, "30");
  assert.equal(attrs.ApproximateNumberOfMessagesDelayed, "1");

  // Long polls on the virtual clock: one that a send answers, one whose wait the clock ends.
  const control = (path, method = "GET") => fetch(`${endpoint}/_sqsfake/${path}`, { method, headers: { "X-Sqsfake-Control": "1" } })
    .then((r) => { assert.equal(r.status, 200, path); return r.json(); });
  const answered = sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 20 }));
  await control("pollers?n=1&timeout=10s");
  await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: "while polling" }));
  const ans = await answered;
  assert.deepEqual(ans.Messages.map((x) => x.Body), ["while polling"]);
  await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: ans.Messages[0].ReceiptHandle }));
  const waiting = sqs.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 20 }));
  await control("pollers?n=1&timeout=10s");
  await control("advance?d=20s", "POST");
  assert.equal((await waiting).Messages, undefined, "a long poll the clock ends is empty");

  const e = await rejects(sqs, new GetQueueUrlCommand({ QueueName: "js-nope" }), QueueDoesNotExist);
  assert.equal(e.name, "QueueDoesNotExist");
  assert.equal(e.message, "The specified queue does not exist.");
  assert.equal(e.$metadata.httpStatusCode, 400);
  assert.equal(e.$fault, "client");
  // The query-compatible code and type, from the x-amzn-query-error header.
  assert.equal(e.Code, "AWS.SimpleQueueService.NonExistentQueue");
  assert.equal(e.Type, "Sender");
  assert.deepEqual(e.Error, { Code: "AWS.SimpleQueueService.NonExistentQueue", Type: "Sender", Message: "The specified queue does not exist." });
  const bad = await rejects(sqs, new SendMessageCommand({ QueueUrl: url, MessageBody: "x", DelaySeconds: 901 }), SQSServiceException);
  assert.equal(bad.name, "InvalidParameterValue");
}

// --- SNS → SQS -------------------------------------------------------------------------

const { TopicArn: topic } = await sns.send(new CreateTopicCommand({ Name: "js-orders", Tags: [{ Key: "team", Value: "js" }] }));
assert.equal(topic, `arn:aws:sns:${REGION}:${ACCOUNT}:js-orders`);
assert.equal((await sns.send(new CreateTopicCommand({ Name: "js-orders" }))).TopicArn, topic, "CreateTopic is idempotent");
await sns.send(new TagResourceCommand({ ResourceArn: topic, Tags: [{ Key: "env", Value: "test" }] }));
assert.deepEqual((await sns.send(new ListTagsForResourceCommand({ ResourceArn: topic }))).Tags,
  [{ Key: "env", Value: "test" }, { Key: "team", Value: "js" }]);
await sns.send(new UntagResourceCommand({ ResourceArn: topic, TagKeys: ["env"] }));
assert.deepEqual((await sns.send(new ListTagsForResourceCommand({ ResourceArn: topic }))).Tags, [{ Key: "team", Value: "js" }]);
await sns.send(new SetTopicAttributesCommand({ TopicArn: topic, AttributeName: "DisplayName", AttributeValue: "JS orders" }));
await sns.send(new AddPermissionCommand({ TopicArn: topic, Label: "js-publish", AWSAccountId: ["111122223333", "444455556666"], ActionName: ["Publish", "GetTopicAttributes"] }));
{
  const a = (await sns.send(new GetTopicAttributesCommand({ TopicArn: topic }))).Attributes;
  assert.equal(a.DisplayName, "JS orders");
  const st = JSON.parse(a.Policy).Statement.find((x) => x.Sid === "js-publish");
  assert.ok(st, a.Policy);
  assert.deepEqual(st.Action, ["SNS:Publish", "SNS:GetTopicAttributes"]);
  await sns.send(new RemovePermissionCommand({ TopicArn: topic, Label: "js-publish" }));
  const b = (await sns.send(new GetTopicAttributesCommand({ TopicArn: topic }))).Attributes;
  assert.ok(!JSON.parse(b.Policy).Statement.some((x) => x.Sid === "js-publish"), b.Policy);
}
const topics = (await sns.send(new ListTopicsCommand({}))).Topics.map((t) => t.TopicArn);
assert.ok(topics.includes(topic), topics);

const raw = await queueFor("js-raw");
const env = await queueFor("js-env");
const { SubscriptionArn: rawSub } = await sns.send(new SubscribeCommand({
  TopicArn: topic,
  Protocol: "sqs",
  Endpoint: raw.arn,
  Attributes: { RawMessageDelivery: "true", FilterPolicy: JSON.stringify({ kind: ["order"] }) },
  ReturnSubscriptionArn: true,
}));
assert.ok(rawSub.startsWith(topic + ":"), rawSub);
const { SubscriptionArn: envSub } = await sns.send(new SubscribeCommand({ TopicArn: topic, Protocol: "sqs", Endpoint: env.arn }));
assert.ok(envSub.startsWith(topic + ":"), envSub);

const subAttrs = (await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: rawSub }))).Attributes;
assert.equal(subAttrs.RawMessageDelivery, "true");
assert.equal(subAttrs.FilterPolicy, '{"kind":["order"]}');
assert.equal(subAttrs.PendingConfirmation, "false");
assert.equal(subAttrs.Endpoint, raw.arn);
const listed = (await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic }))).Subscriptions;
assert.deepEqual(listed.map((s) => s.SubscriptionArn).sort(), [rawSub, envSub].sort());

const topicAttrs = (await sns.send(new GetTopicAttributesCommand({ TopicArn: topic }))).Attributes;
assert.equal(topicAttrs.SubscriptionsConfirmed, "2");
assert.equal(topicAttrs.Owner, ACCOUNT);

// Publish with attributes of every type: the raw queue gets them as SQS attributes, the
// enveloped one as the envelope's MessageAttributes.
const published = await sns.send(new PublishCommand({
  TopicArn: topic,
  Message: "an order",
  Subject: "new order",
  MessageAttributes: {
    kind: { DataType: "String", StringValue: "order" },
    total: { DataType: "Number", StringValue: "25" },
    tags: { DataType: "String.Array", StringValue: '["a","rush"]' },
    bin: { DataType: "Binary", BinaryValue: new Uint8Array([7, 8, 9]) },
  },
}));
assert.match(published.MessageId, /^[0-9a-f-]{36}$/);
await sns.send(new PublishCommand({ TopicArn: topic, Message: "a refund", MessageAttributes: { kind: { DataType: "String", StringValue: "refund" } } }));

const rawGot = await receiveAll(raw.url);
assert.deepEqual(rawGot.map((m) => m.Body), ["an order"], "the filter policy lets the order through only");
const ra = rawGot[0].MessageAttributes;
assert.equal(ra.kind.StringValue, "order");
assert.equal(ra.total.DataType, "Number");
assert.equal(ra.total.StringValue, "25");
assert.equal(ra.tags.DataType, "String.Array");
assert.deepEqual([...ra.bin.BinaryValue], [7, 8, 9]);

const envGot = await receiveAll(env.url);
assert.deepEqual(envGot.map((m) => JSON.parse(m.Body).Message), ["an order", "a refund"]);
const envelope = JSON.parse(envGot[0].Body);
assert.deepEqual(Object.keys(envelope), ["Type", "MessageId", "TopicArn", "Subject", "Message", "Timestamp",
  "SignatureVersion", "Signature", "SigningCertURL", "UnsubscribeURL", "MessageAttributes"]);
assert.equal(envelope.Type, "Notification");
assert.equal(envelope.MessageId, published.MessageId);
assert.equal(envelope.TopicArn, topic);
assert.equal(envelope.Subject, "new order");
assert.match(envelope.Timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
assert.equal(envelope.SignatureVersion, "1");
assert.equal(envelope.UnsubscribeURL, `${endpoint}/?Action=Unsubscribe&SubscriptionArn=${envSub}`);
assert.deepEqual(envelope.MessageAttributes, {
  bin: { Type: "Binary", Value: Buffer.from([7, 8, 9]).toString("base64") },
  kind: { Type: "String", Value: "order" },
  tags: { Type: "String.Array", Value: '["a","rush"]' },
  total: { Type: "Number", Value: "25" },
});
assert.equal(Object.keys(envGot[0].MessageAttributes ?? {}).length, 0, "an enveloped delivery has no SQS attributes");

// A consumer's signature check: the certificate served at SigningCertURL verifies the
// envelope's SignatureVersion 1 signature (SHA1withRSA over the documented fields).
{
  assert.ok(envelope.SigningCertURL.startsWith(endpoint + "/"), envelope.SigningCertURL);
  const res = await fetch(envelope.SigningCertURL);
  assert.equal(res.status, 200);
  const cert = new crypto.X509Certificate(await res.text());
  let text = "";
  for (const k of ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]) {
    text += `${k}\n${envelope[k]}\n`;
  }
  const ok = crypto.verify("RSA-SHA1", Buffer.from(text), cert.publicKey, Buffer.from(envelope.Signature, "base64"));
  assert.ok(ok, "the envelope's signature verifies against the served certificate");
  const tampered = crypto.verify("RSA-SHA1", Buffer.from(text + "x"), cert.publicKey, Buffer.from(envelope.Signature, "base64"));
  assert.ok(!tampered);
}

// A MessageBody-scope filter policy set afterwards, on nested keys.
await sns.send(new SetSubscriptionAttributesCommand({ SubscriptionArn: rawSub, AttributeName: "FilterPolicyScope", AttributeValue: "MessageBody" }));
await sns.send(new SetSubscriptionAttributesCommand({
  SubscriptionArn: rawSub,
  AttributeName: "FilterPolicy",
  AttributeValue: JSON.stringify({ order: { total: [{ numeric: [">", 100] }], region: [{ prefix: "eu-" }] } }),
}));

// PublishBatch: every entry goes to the enveloped queue; only the big EU order passes the
// raw subscription's body filter.
const batch = await sns.send(new PublishBatchCommand({
  TopicArn: topic,
  PublishBatchRequestEntries: [
    { Id: "small", Message: JSON.stringify({ order: { total: 5, region: "eu-west-1" } }) },
    { Id: "big", Message: JSON.stringify({ order: { total: 500, region: "eu-west-1" } }), Subject: "big",
      MessageAttributes: { src: { DataType: "String", StringValue: "batch" }, n: { DataType: "Number", StringValue: "2" } } },
    { Id: "us", Message: JSON.stringify({ order: { total: 500, region: "us-east-1" } }) },
  ],
}));
assert.deepEqual(batch.Successful.map((e) => e.Id), ["small", "big", "us"]);
for (const e of batch.Successful) assert.match(e.MessageId, /^[0-9a-f-]{36}$/);
assert.deepEqual(batch.Failed ?? [], []);
const rawBatch = await receiveAll(raw.url);
assert.deepEqual(rawBatch.map((m) => JSON.parse(m.Body).order.total), [500]);
assert.equal(rawBatch[0].MessageAttributes.src.StringValue, "batch");
assert.equal(rawBatch[0].MessageAttributes.n.StringValue, "2");
const batchEnv = (await receiveAll(env.url)).map((m) => JSON.parse(m.Body));
assert.deepEqual(batchEnv.map((e) => e.MessageId), batch.Successful.map((e) => e.MessageId));
assert.equal(batchEnv[1].Subject, "big");

// MessageStructure=json: the enveloped queue gets the "sqs" part.
await sns.send(new PublishCommand({ TopicArn: topic, MessageStructure: "json", Message: JSON.stringify({ default: "d", sqs: "for SQS" }) }));
assert.deepEqual((await receiveAll(env.url)).map((m) => JSON.parse(m.Body).Message), ["for SQS"]);

// Errors as the SDK surfaces them.
{
  const e = await rejects(sns, new GetTopicAttributesCommand({ TopicArn: `arn:aws:sns:${REGION}:${ACCOUNT}:js-nope` }), NotFoundException);
  assert.equal(e.message, "Topic does not exist");
  assert.equal(e.$metadata.httpStatusCode, 404);
  assert.equal(e.$fault, "client");
  const empty = await rejects(sns, new PublishCommand({ TopicArn: topic, Message: "" }), InvalidParameterException);
  assert.equal(empty.message, "Invalid parameter: Empty message");
  assert.equal(empty.$metadata.httpStatusCode, 400);
  const policy = await rejects(sns, new SetSubscriptionAttributesCommand({ SubscriptionArn: envSub, AttributeName: "FilterPolicy", AttributeValue: '{"kind":[]}' }), InvalidParameterException);
  assert.equal(policy.message, "Invalid parameter: FilterPolicy: Empty arrays are not allowed\n" +
    " at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 11]");
  const ids = await rejects(sns, new PublishBatchCommand({
    TopicArn: topic,
    PublishBatchRequestEntries: [{ Id: "x", Message: "1" }, { Id: "x", Message: "2" }],
  }), SNSServiceException);
  assert.equal(ids.name, "BatchEntryIdsNotDistinctException");
  const sub = await rejects(sns, new SubscribeCommand({ TopicArn: topic, Protocol: "carrier-pigeon", Endpoint: "x" }), InvalidParameterException);
  assert.match(sub.message, /^Invalid parameter: /);
}

// A queue of another account: the subscription is pending until ConfirmSubscription with
// the token of the SubscriptionConfirmation delivered into the queue.
{
  const OTHER = "111111111111";
  const other = new SQSClient(config(endpoint, OTHER, "test"));
  const arn = `arn:aws:sqs:${REGION}:${OTHER}:js-other`;
  const policy = {
    Statement: [{ Effect: "Allow", Principal: { Service: "sns.amazonaws.com" }, Action: "sqs:SendMessage", Resource: arn,
      Condition: { ArnEquals: { "aws:SourceArn": topic } } }],
  };
  const { QueueUrl } = await other.send(new CreateQueueCommand({ QueueName: "js-other", Attributes: { Policy: JSON.stringify(policy) } }));
  assert.equal(QueueUrl, `${endpoint}/${OTHER}/js-other`);
  const pending = await sns.send(new SubscribeCommand({ TopicArn: topic, Protocol: "sqs", Endpoint: arn }));
  assert.equal(pending.SubscriptionArn, "pending confirmation");
  const { Messages: [confirmation] } = await other.send(new ReceiveMessageCommand({ QueueUrl }));
  const c = JSON.parse(confirmation.Body);
  assert.deepEqual(Object.keys(c), ["Type", "MessageId", "Token", "TopicArn", "Message", "SubscribeURL", "Timestamp",
    "SignatureVersion", "Signature", "SigningCertURL"]);
  assert.equal(c.Type, "SubscriptionConfirmation");
  assert.equal(c.TopicArn, topic);
  const wrong = await rejects(sns, new ConfirmSubscriptionCommand({ TopicArn: topic, Token: "not-the-token" }), InvalidParameterException);
  assert.equal(wrong.message, "Invalid token");
  const { SubscriptionArn } = await sns.send(new ConfirmSubscriptionCommand({ TopicArn: topic, Token: c.Token }));
  assert.ok(SubscriptionArn.startsWith(topic + ":"), SubscriptionArn);
  const all = (await sns.send(new ListSubscriptionsCommand({}))).Subscriptions;
  assert.ok(all.some((x) => x.SubscriptionArn === SubscriptionArn && x.Owner === ACCOUNT && x.Endpoint === arn), all);
  await sns.send(new UnsubscribeCommand({ SubscriptionArn }));
}

// --- FIFO topic → FIFO queue -----------------------------------------------------------

{
  const { TopicArn: fifo } = await sns.send(new CreateTopicCommand({
    Name: "js-orders.fifo",
    Attributes: { FifoTopic: "true", ContentBasedDeduplication: "true" },
  }));
  const q = await queueFor("js-orders.fifo", { FifoQueue: "true" });
  const { SubscriptionArn: fsub } = await sns.send(new SubscribeCommand({
    TopicArn: fifo, Protocol: "sqs", Endpoint: q.arn, Attributes: { RawMessageDelivery: "true" },
  }));
  assert.ok(fsub.startsWith(fifo + ":"), fsub);
  const first = await sns.send(new PublishCommand({ TopicArn: fifo, Message: "g1-a", MessageGroupId: "g1" }));
  assert.match(first.SequenceNumber, /^\d+$/);
  const dup = await sns.send(new PublishCommand({ TopicArn: fifo, Message: "g1-a", MessageGroupId: "g1" }));
  assert.equal(dup.MessageId, first.MessageId, "a content-based duplicate gets the first MessageId");
  assert.equal(dup.SequenceNumber, first.SequenceNumber);
  const fb = await sns.send(new PublishBatchCommand({
    TopicArn: fifo,
    PublishBatchRequestEntries: [
      { Id: "1", Message: "g1-b", MessageGroupId: "g1" },
      { Id: "2", Message: "g2-a", MessageGroupId: "g2", MessageDeduplicationId: "d-g2-a" },
    ],
  }));
  assert.deepEqual(fb.Successful.map((e) => e.Id), ["1", "2"]);
  for (const e of fb.Successful) assert.match(e.SequenceNumber, /^\d+$/);

  const got = await receiveAll(q.url);
  assert.deepEqual(got.map((m) => [m.Body, m.Attributes.MessageGroupId]), [["g1-a", "g1"], ["g1-b", "g1"], ["g2-a", "g2"]]);
  assert.equal(got[2].Attributes.MessageDeduplicationId, "d-g2-a");
  for (const m of got) assert.match(m.Attributes.SequenceNumber, /^\d+$/);

  const noGroup = await rejects(sns, new PublishCommand({ TopicArn: fifo, Message: "x" }), InvalidParameterException);
  assert.match(noGroup.message, /MessageGroupId/);
  const { TopicArn: std } = await sns.send(new CreateTopicCommand({ Name: "js-std" }));
  const mixed = await rejects(sns, new SubscribeCommand({ TopicArn: std, Protocol: "sqs", Endpoint: q.arn }), InvalidParameterException);
  assert.match(mixed.message, /^Invalid parameter: /);

  await sns.send(new UnsubscribeCommand({ SubscriptionArn: fsub }));
  await sns.send(new DeleteTopicCommand({ TopicArn: fifo }));
}

// --- Signed mode -----------------------------------------------------------------------

if (signedEndpoint) {
  const good = config(signedEndpoint, "AKIAJSSDK", "js-secret");
  const { TopicArn } = await new SNSClient(good).send(new CreateTopicCommand({ Name: "js-signed" }));
  assert.equal(TopicArn, `arn:aws:sns:${REGION}:${ACCOUNT}:js-signed`);
  const { QueueUrl } = await new SQSClient(good).send(new CreateQueueCommand({ QueueName: "js-signed" }));
  assert.equal(QueueUrl, `${signedEndpoint}/${ACCOUNT}/js-signed`);

  const wrong = config(signedEndpoint, "AKIAJSSDK", "guess");
  const se = await rejects(new SNSClient(wrong), new ListTopicsCommand({}), SNSServiceException);
  assert.equal(se.name, "SignatureDoesNotMatch");
  assert.equal(se.$metadata.httpStatusCode, 403);
  const qe = await rejects(new SQSClient(wrong), new GetQueueUrlCommand({ QueueName: "js-signed" }), SQSServiceException);
  assert.equal(qe.name, "SignatureDoesNotMatch");
  const unknown = await rejects(new SNSClient(config(signedEndpoint, "AKIAMALLORY", "x")), new ListTopicsCommand({}), SNSServiceException);
  assert.equal(unknown.name, "InvalidClientTokenId");
}

await sns.send(new UnsubscribeCommand({ SubscriptionArn: rawSub }));
await sns.send(new DeleteTopicCommand({ TopicArn: topic }));
console.log("ok");
