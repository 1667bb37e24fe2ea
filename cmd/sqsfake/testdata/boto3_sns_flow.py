"""An SNS-to-SQS flow driven with boto3 against an sqsfake server (SNS and SQS on one port).

Usage: python3 boto3_sns_flow.py http://127.0.0.1:PORT

It exits 0 and prints "ok" when every check passes; otherwise it raises.
"""

import json
import sys

import boto3
import botocore.config
import botocore.exceptions

ENDPOINT = sys.argv[1]
ACCOUNT = "123456789012"
cfg = botocore.config.Config(retries={"max_attempts": 1})
kw = dict(endpoint_url=ENDPOINT, region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test", config=cfg)
sns = boto3.client("sns", **kw)
sqs = boto3.client("sqs", **kw)

topic = sns.create_topic(Name="boto-orders")["TopicArn"]
assert topic == "arn:aws:sns:us-east-1:%s:boto-orders" % ACCOUNT, topic
queue_arn = "arn:aws:sqs:us-east-1:%s:boto-q" % ACCOUNT
policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
          "Action": "sqs:SendMessage", "Resource": queue_arn, "Condition": {"ArnEquals": {"aws:SourceArn": topic}}}]}
url = sqs.create_queue(QueueName="boto-q", Attributes={"Policy": json.dumps(policy)})["QueueUrl"]

sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn,
                    Attributes={"RawMessageDelivery": "true", "FilterPolicy": json.dumps({"kind": ["order"]})})["SubscriptionArn"]
assert sub.startswith(topic + ":"), sub
attrs = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
assert attrs["RawMessageDelivery"] == "true", attrs
assert attrs["FilterPolicy"] == '{"kind": ["order"]}', attrs

for kind in ["order", "refund"]:
    sns.publish(TopicArn=topic, Message="a " + kind, MessageAttributes={"kind": {"DataType": "String", "StringValue": kind}})
msgs = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"])["Messages"]
assert [m["Body"] for m in msgs] == ["a order"], msgs
assert msgs[0]["MessageAttributes"]["kind"]["StringValue"] == "order", msgs

batch = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
    {"Id": "1", "Message": "b1", "MessageAttributes": {"kind": {"DataType": "String", "StringValue": "order"}}},
    {"Id": "2", "Message": "b2"}])
assert [e["Id"] for e in batch["Successful"]] == ["1", "2"], batch
assert batch["Failed"] == [], batch

topics = [t["TopicArn"] for t in sns.get_paginator("list_topics").paginate().build_full_result()["Topics"]]
assert topic in topics, topics
ta = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
assert ta["SubscriptionsConfirmed"] == "1", ta

try:
    sns.get_topic_attributes(TopicArn="arn:aws:sns:us-east-1:%s:nope" % ACCOUNT)
    raise AssertionError("want NotFound")
except botocore.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "NotFound", e.response
    assert e.response["Error"]["Message"] == "Topic does not exist", e.response
    assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 404, e.response
try:
    sns.publish(TopicArn=topic, Message="")
    raise AssertionError("want InvalidParameter")
except botocore.exceptions.ClientError as e:
    assert e.response["Error"]["Code"] == "InvalidParameter", e.response
    assert e.response["Error"]["Message"] == "Invalid parameter: Empty message", e.response

sns.unsubscribe(SubscriptionArn=sub)
sns.delete_topic(TopicArn=topic)
print("ok")
