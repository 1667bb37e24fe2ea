"""A representative SQS flow driven with boto3 against an sqsfake server.

Usage: python3 boto3_flow.py http://127.0.0.1:PORT

The server must run with -clock virtual: the script moves time with the control endpoint
POST /_sqsfake/advance and waits for parked long polls with GET /_sqsfake/pollers. It exits 0
and prints "ok" when every check passes; otherwise it raises, so the traceback says which.
"""

import hashlib
import json
import sys
import threading
import urllib.request

import boto3
import botocore.config

ENDPOINT = sys.argv[1]
ACCOUNT = "123456789012"

sqs = boto3.client(
    "sqs",
    endpoint_url=ENDPOINT,
    region_name="us-east-1",
    aws_access_key_id="test",
    aws_secret_access_key="test",
    config=botocore.config.Config(retries={"max_attempts": 1}, read_timeout=30),
)


def control(method, path):
    # Control requests carry X-Sqsfake-Control, which a page of another site cannot send.
    req = urllib.request.Request(ENDPOINT + "/_sqsfake/" + path, method=method, headers={"X-Sqsfake-Control": "1"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp)


def advance(duration):
    return control("POST", "advance?d=" + duration)


def expect_error(exception, code, call, **kwargs):
    """Runs call(**kwargs), which must raise the modeled exception with the legacy code."""
    try:
        call(**kwargs)
    except exception as e:
        assert e.response["Error"]["Code"] == code, e.response
        assert e.response["ResponseMetadata"]["RequestId"], e.response
        return e
    raise AssertionError("%s did not raise %s" % (call.__name__, exception.__name__))


def md5(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


# Create a dead-letter queue and a queue that redrives to it after two receives.
dlq_url = sqs.create_queue(QueueName="flow-dlq")["QueueUrl"]
assert dlq_url == ENDPOINT + "/" + ACCOUNT + "/flow-dlq", dlq_url
dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
assert dlq_arn == "arn:aws:sqs:us-east-1:%s:flow-dlq" % ACCOUNT, dlq_arn
url = sqs.create_queue(
    QueueName="flow",
    Attributes={
        "VisibilityTimeout": "30",
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2}),
    },
    tags={"team": "payments"},
)["QueueUrl"]
assert sqs.get_queue_url(QueueName="flow")["QueueUrl"] == url
assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "payments"}
assert url in sqs.list_queues(QueueNamePrefix="flow")["QueueUrls"]

# Send with attributes of each type; the digests are SQS's.
sent = sqs.send_message(
    QueueUrl=url,
    MessageBody="hello from boto3",
    MessageAttributes={
        "s": {"DataType": "String", "StringValue": "x"},
        "n": {"DataType": "Number", "StringValue": "42"},
        "b": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
    },
)
assert sent["MD5OfMessageBody"] == md5("hello from boto3"), sent
assert len(sent["MD5OfMessageAttributes"]) == 32, sent

# Receive: body, attributes and system attributes as sent.
got = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"], AttributeNames=["All"])["Messages"]
assert len(got) == 1, got
msg = got[0]
assert msg["MessageId"] == sent["MessageId"]
assert msg["Body"] == "hello from boto3"
assert msg["MD5OfBody"] == md5("hello from boto3")
assert msg["MD5OfMessageAttributes"] == sent["MD5OfMessageAttributes"]
assert msg["MessageAttributes"]["b"]["BinaryValue"] == b"\x00\x01\xff", msg
assert msg["MessageAttributes"]["n"] == {"DataType": "Number", "StringValue": "42"}, msg
assert msg["Attributes"]["ApproximateReceiveCount"] == "1", msg
assert msg["Attributes"]["SentTimestamp"] == "1735689600000", msg  # the virtual clock's start

# Change its visibility: hidden for 10 seconds of virtual time, then back.
sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=msg["ReceiptHandle"], VisibilityTimeout=10)
assert "Messages" not in sqs.receive_message(QueueUrl=url)
assert advance("10s")["now"] == "2025-01-01T00:00:10Z"
again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])["Messages"]
assert again[0]["Attributes"]["ApproximateReceiveCount"] == "2", again
assert again[0]["ReceiptHandle"] != msg["ReceiptHandle"]

# After maxReceiveCount receives the next receive moves it to the dead-letter queue.
advance("30s")
assert "Messages" not in sqs.receive_message(QueueUrl=url)
dead = sqs.receive_message(QueueUrl=dlq_url, AttributeNames=["All"])["Messages"]
assert dead[0]["MessageId"] == sent["MessageId"], dead
assert dead[0]["Attributes"]["DeadLetterQueueSourceArn"].endswith(":flow"), dead
assert sqs.list_dead_letter_source_queues(QueueUrl=dlq_url)["queueUrls"] == [url]
sqs.delete_message(QueueUrl=dlq_url, ReceiptHandle=dead[0]["ReceiptHandle"])

# A long poll parks until a message arrives.
polled = {}


def poll():
    polled.update(sqs.receive_message(QueueUrl=url, WaitTimeSeconds=20))


poller = threading.Thread(target=poll)
poller.start()
assert control("GET", "pollers?n=1&timeout=10s")["pollers"] == 1
sqs.send_message(QueueUrl=url, MessageBody="wake up")
poller.join(10)
assert polled["Messages"][0]["Body"] == "wake up", polled
sqs.delete_message(QueueUrl=url, ReceiptHandle=polled["Messages"][0]["ReceiptHandle"])

# Batches report per-entry failures and succeed with HTTP 200.
batch = sqs.send_message_batch(
    QueueUrl=url,
    Entries=[
        {"Id": "ok1", "MessageBody": "one"},
        {"Id": "bad", "MessageBody": "two", "DelaySeconds": 1000},
        {"Id": "ok2", "MessageBody": "three"},
    ],
)
assert sorted(e["Id"] for e in batch["Successful"]) == ["ok1", "ok2"], batch
assert batch["Failed"][0]["Id"] == "bad" and batch["Failed"][0]["Code"] == "InvalidParameterValue", batch
assert batch["Failed"][0]["SenderFault"] is True, batch
received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
assert len(received) == 2, received
deleted = sqs.delete_message_batch(
    QueueUrl=url,
    Entries=[
        {"Id": "a", "ReceiptHandle": received[0]["ReceiptHandle"]},
        {"Id": "b", "ReceiptHandle": "garbage"},
    ],
)
assert [e["Id"] for e in deleted["Successful"]] == ["a"], deleted
assert deleted["Failed"][0]["Code"] == "ReceiptHandleIsInvalid", deleted

# Typed errors, with SQS's legacy codes from the x-amzn-query-error header.
expect_error(sqs.exceptions.QueueDoesNotExist, "AWS.SimpleQueueService.NonExistentQueue", sqs.get_queue_url, QueueName="missing")
expect_error(sqs.exceptions.ReceiptHandleIsInvalid, "ReceiptHandleIsInvalid", sqs.delete_message, QueueUrl=url, ReceiptHandle="garbage")
expect_error(sqs.exceptions.QueueNameExists, "QueueAlreadyExists", sqs.create_queue, QueueName="flow", Attributes={"VisibilityTimeout": "60"})
err = expect_error(sqs.exceptions.ClientError, "InvalidParameterValue", sqs.receive_message, QueueUrl=url, WaitTimeSeconds=21)
assert "WaitTimeSeconds" in err.response["Error"]["Message"], err.response
sqs.purge_queue(QueueUrl=url)
err = expect_error(sqs.exceptions.PurgeQueueInProgress, "AWS.SimpleQueueService.PurgeQueueInProgress", sqs.purge_queue, QueueUrl=url)
assert err.response["ResponseMetadata"]["HTTPStatusCode"] == 403, err.response

# FIFO: order within a group, deduplication, sequence numbers, the group lock.
fifo = sqs.create_queue(QueueName="flow.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
first = sqs.send_message(QueueUrl=fifo, MessageBody="one", MessageGroupId="g")
assert sqs.send_message(QueueUrl=fifo, MessageBody="one", MessageGroupId="g")["MessageId"] == first["MessageId"], "deduplicated"
second = sqs.send_message(QueueUrl=fifo, MessageBody="two", MessageGroupId="g")
assert int(second["SequenceNumber"]) > int(first["SequenceNumber"]), (first, second)
got = sqs.receive_message(QueueUrl=fifo, MaxNumberOfMessages=10, AttributeNames=["All"])["Messages"]
assert [m["Body"] for m in got] == ["one", "two"], got
assert got[0]["Attributes"]["MessageGroupId"] == "g" and got[0]["Attributes"]["SequenceNumber"] == first["SequenceNumber"], got
sqs.send_message(QueueUrl=fifo, MessageBody="three", MessageGroupId="g")
assert "Messages" not in sqs.receive_message(QueueUrl=fifo), "the group is locked while messages are in flight"
expect_error(sqs.exceptions.ClientError, "MissingParameter", sqs.send_message, QueueUrl=fifo, MessageBody="x")

# Zeros boto3 sends and Go cannot: a short poll on a long-polling queue, a receive that leaves
# the message visible, a send that skips the queue's delay. With the virtual clock standing
# still, a long poll here would never return.
slow = sqs.create_queue(QueueName="flow-slow", Attributes={"ReceiveMessageWaitTimeSeconds": "20", "DelaySeconds": "60"})["QueueUrl"]
assert "Messages" not in sqs.receive_message(QueueUrl=slow, WaitTimeSeconds=0)
sqs.send_message(QueueUrl=slow, MessageBody="now", DelaySeconds=0)
assert len(sqs.receive_message(QueueUrl=slow, WaitTimeSeconds=0, VisibilityTimeout=0)["Messages"]) == 1
assert sqs.receive_message(QueueUrl=slow, WaitTimeSeconds=0)["Messages"][0]["Body"] == "now", "still visible"

# Clean up, and the name's 60-second cooldown runs on the virtual clock.
sqs.delete_queue(QueueUrl=url)
expect_error(sqs.exceptions.QueueDeletedRecently, "AWS.SimpleQueueService.QueueDeletedRecently", sqs.create_queue, QueueName="flow")
advance("60s")
sqs.create_queue(QueueName="flow")

print("ok")
