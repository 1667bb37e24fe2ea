"""Writes sigv4_botocore.json: requests signed by botocore, for wire_sigv4_test.go.

Usage: python3 testdata/sigv4_botocore.py > testdata/sigv4_botocore.json

Each request is signed at 2026-01-01T00:00:00Z with the key AKIDBOTOCORE / botocore-secret
for eu-west-1, as boto3 sends it to http://127.0.0.1:9324: a JSON-protocol SendMessage made
by a boto3 client (captured before it is sent), a query-protocol form POST, a query-protocol
GET, and a presigned GET (SigV4QueryAuth, X-Amz-Expires 300).
"""

import datetime
import json
import sys
from unittest import mock

import boto3
import botocore
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest, AWSResponse
from botocore.credentials import Credentials

FIXED = datetime.datetime(2026, 1, 1, 0, 0, 0)
ENDPOINT = "http://127.0.0.1:9324"
QUEUE_URL = ENDPOINT + "/123456789012/jobs"
CREDS = Credentials("AKIDBOTOCORE", "botocore-secret")
out = []


def record(name, method, url, headers, body):
    if isinstance(body, str):
        body = body.encode()
    out.append({
        "name": name,
        "method": method,
        "url": url,
        "headers": [[k, v if isinstance(v, str) else v.decode()] for k, v in headers.items()],
        "body": (body or b"").decode(),
    })


with mock.patch("botocore.auth.get_current_datetime", return_value=FIXED):
    client = boto3.client("sqs", endpoint_url=ENDPOINT, region_name="eu-west-1",
                          aws_access_key_id=CREDS.access_key, aws_secret_access_key=CREDS.secret_key)

    def capture(request, **kwargs):
        record("boto3 JSON SendMessage", request.method, request.url, request.headers, request.body)
        return AWSResponse(request.url, 200, {"x-amzn-RequestId": "x"}, None)

    client.meta.events.register("before-send.sqs.SendMessage", capture)
    try:
        client.send_message(QueueUrl=QUEUE_URL, MessageBody="hello  world")
    except Exception:
        pass  # the captured response has no body; the request is what we want

    form = "Action=SendMessage&MessageBody=hello+world&QueueUrl=" + QUEUE_URL.replace(":", "%3A").replace("/", "%2F") + "&Version=2012-11-05"
    req = AWSRequest(method="POST", url=ENDPOINT + "/", data=form,
                     headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    SigV4Auth(CREDS, "sqs", "eu-west-1").add_auth(req)
    p = req.prepare()
    record("botocore query POST", p.method, p.url, p.headers, p.body)

    req = AWSRequest(method="GET", url=QUEUE_URL + "?Action=GetQueueAttributes&AttributeName.1=All&Version=2012-11-05")
    SigV4Auth(CREDS, "sqs", "eu-west-1").add_auth(req)
    p = req.prepare()
    record("botocore query GET", p.method, p.url, p.headers, p.body)

    req = AWSRequest(method="GET", url=QUEUE_URL + "?Action=ReceiveMessage&MaxNumberOfMessages=10&Version=2012-11-05")
    SigV4QueryAuth(CREDS, "sqs", "eu-west-1", expires=300).add_auth(req)
    p = req.prepare()
    record("botocore presigned GET", p.method, p.url, p.headers, p.body)

json.dump({"botocore": botocore.__version__, "requests": out}, sys.stdout, indent=1)
sys.stdout.write("\n")
