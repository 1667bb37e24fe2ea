package sqsfake_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
)

// Handler speaks SQS's older query protocol too, next to awsJson1_0: form-encoded
// Action=… requests, or a GET with a query string sent to a queue's URL, answered in XML.
// This is how aws-sdk-go v1 before v1.47.6, aws-sdk-go-v2 service/sqs before v1.27.0 and
// hand-written scripts talk to SQS. Both protocols reach the same queues.
func ExampleFake_Handler_queryProtocol() {
	f := sqsfake.New()
	srv := httptest.NewServer(f.Handler())
	defer srv.Close()

	// A form-encoded POST, as the old SDKs send it.
	resp, _ := http.PostForm(srv.URL, url.Values{"Action": {"CreateQueue"}, "Version": {"2012-11-05"}, "QueueName": {"jobs"}})
	resp.Body.Close()

	// A GET of the queue's URL, which then needs no QueueUrl parameter.
	resp, _ = http.Get(srv.URL + "/123456789012/jobs?Action=SendMessage&Version=2012-11-05&MessageBody=hello+%26+welcome")
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var sent struct {
		MessageID string `xml:"SendMessageResult>MessageId"`
		MD5       string `xml:"SendMessageResult>MD5OfMessageBody"`
	}
	xml.Unmarshal(answer, &sent)
	fmt.Println(resp.Header.Get("Content-Type"), sent.MD5)

	// The message is there for every door: here the fake's own methods.
	out, _ := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("jobs")})
	fmt.Println(*out.Messages[0].Body, *out.Messages[0].MessageId == sent.MessageID)

	// Errors use the query protocol's ErrorResponse and legacy codes.
	resp, _ = http.Get(srv.URL + "/?Action=GetQueueUrl&QueueName=missing")
	answer, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	var failed struct {
		Code    string `xml:"Error>Code"`
		Message string `xml:"Error>Message"`
	}
	xml.Unmarshal(answer, &failed)
	fmt.Println(resp.StatusCode, failed.Code, failed.Message)
	// Output:
	// text/xml 803cfadfd2edaca125e335031c43dd4c
	// hello & welcome true
	// 400 AWS.SimpleQueueService.NonExistentQueue The specified queue does not exist for this wsdl version.
}
