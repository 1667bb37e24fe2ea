package snsfake_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// verifySNS checks a message SNS POSTed as a webhook's SNS message validator does (AWS's
// "Verifying the signatures of Amazon SNS messages"): the certificate comes from
// SigningCertURL, which must be SNS's own host, and signs the message's canonical text.
// client fetches the certificate: in a test, the fake's HTTPClient.
func verifySNS(client *http.Client, body []byte) (map[string]string, error) {
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	u, err := url.Parse(m["SigningCertURL"])
	if err != nil || u.Scheme != "https" || !strings.HasPrefix(u.Host, "sns.") || !strings.HasSuffix(u.Host, ".amazonaws.com") {
		return nil, fmt.Errorf("SigningCertURL %q is not SNS's", m["SigningCertURL"])
	}
	resp, err := client.Get(u.String())
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	certPEM, _ := io.ReadAll(resp.Body)
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return nil, errors.New("no certificate at SigningCertURL")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, err
	}
	keys := []string{"Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"}
	if m["Type"] != "Notification" {
		keys = []string{"Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"}
	}
	var text strings.Builder
	for _, k := range keys {
		if v, ok := m[k]; ok {
			text.WriteString(k + "\n" + v + "\n")
		}
	}
	sig, err := base64.StdEncoding.DecodeString(m["Signature"])
	if err != nil {
		return nil, err
	}
	alg := x509.SHA1WithRSA
	if m["SignatureVersion"] == "2" {
		alg = x509.SHA256WithRSA
	}
	return m, cert.CheckSignature(alg, []byte(text.String()), sig)
}

// A webhook that verifies every message SNS sends it, confirms its subscription by the
// SubscribeURL, and fails twice before it takes the notification: SNS retries it 20 and 40
// seconds later on the fake's clock (the default policy), and the record shows each attempt.
func Example_webhookThatFailsTwice() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	failures := 2
	topics.HandleEndpoint("https://orders.example.com/sns", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, err := verifySNS(topics.HTTPClient(), body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		switch m["Type"] {
		case "SubscriptionConfirmation":
			resp, err := topics.HTTPClient().Get(m["SubscribeURL"])
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			resp.Body.Close()
		case "Notification":
			if failures > 0 {
				failures--
				http.Error(w, "database unavailable", http.StatusInternalServerError)
				return
			}
			fmt.Println("the webhook took:", m["Message"])
		}
	}))
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"),
		Endpoint: aws.String("https://orders.example.com/sns")})

	out, _ := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String(`{"order":42}`)})
	f.Advance(time.Minute)
	p, _ := topics.Publication(*out.MessageId)
	fmt.Println(p.Deliveries[0])
	// Output:
	// the webhook took: {"order":42}
	// arn:aws:sns:us-east-1:123456789012:orders:3fecc847-4855-44d5-990c-096f0d1e17c1 → https://orders.example.com/sns: delivered
	//       #1 2025-01-01T00:00:00.000Z initial: 500 failed
	//       #2 2025-01-01T00:00:20.000Z backoff: 500 failed
	//       #3 2025-01-01T00:00:40.000Z backoff: 200 delivered
}

// A webhook that is down for the whole schedule: when SNS gives up, the message is in the
// subscription's dead-letter queue with the body the webhook would have got, and nothing is
// sent after.
func Example_webhookDownToTheDeadLetterQueue() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	posts := 0
	topics.HandleEndpoint("https://orders.example.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Sns-Message-Type") == "Notification" {
			posts++
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	dlq, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders-dlq")})
	dlqArn := "arn:aws:sqs:us-east-1:123456789012:orders-dlq"
	f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: dlq.QueueUrl,
		Attributes: map[string]string{"Policy": snsfake.QueuePolicy(dlqArn, *tp.TopicArn)}})
	sub, _ := topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"),
		Endpoint: aws.String("https://orders.example.com/sns"), ReturnSubscriptionArn: true,
		Attributes: map[string]string{"RawMessageDelivery": "true", "RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `"}`}})
	info, _ := topics.Topic("orders")
	topics.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String(info.Subscriptions[0].Token)})

	out, _ := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("order 42")})
	f.Advance(time.Hour)
	p, _ := topics.Publication(*out.MessageId)
	d := p.Deliveries[0]
	fmt.Println(d.SubscriptionArn == *sub.SubscriptionArn, d.Outcome, d.Reason, posts)
	msgs, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq.QueueUrl})
	fmt.Println("in the DLQ:", *msgs.Messages[0].Body)
	f.Advance(time.Hour)
	fmt.Println("POSTs after:", posts)
	// Output:
	// true dead-lettered the retry policy is exhausted after 4 attempt(s) 4
	// in the DLQ: order 42
	// POSTs after: 4
}

// A DeliveryPolicy with exponential backoff, drawn as the attempts it makes on the fake's
// clock against an endpoint that never answers well: 2 retries at once, 2 a second apart, 6
// from 1 to 60 seconds exponentially, 2 a minute apart.
func Example_exponentialBackoffDrawnAsAttempts() {
	ctx := context.Background()
	f := sqsfake.New()
	topics := snsfake.New(f)
	topics.HandleEndpoint("https://slow.example.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Amz-Sns-Message-Type") == "Notification" {
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String("https://slow.example.com/hook"),
		Attributes: map[string]string{"DeliveryPolicy": `{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":60,"numRetries":12,` +
			`"numNoDelayRetries":2,"numMinDelayRetries":2,"numMaxDelayRetries":2,"backoffFunction":"exponential"}}`}})
	info, _ := topics.Topic("t")
	topics.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String(info.Subscriptions[0].Token)})

	start := f.Now()
	out, _ := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("hi")})
	f.Advance(time.Hour)
	p, _ := topics.Publication(*out.MessageId)
	prev := start
	for _, a := range p.Deliveries[0].Attempts {
		wait := a.Time.Sub(prev)
		prev = a.Time
		// One dot for each 2 s SNS waited before the attempt, the attempt a bullet.
		fmt.Printf("#%-2d +%-9v %-12s %s●\n", a.N, a.Time.Sub(start), a.Phase, strings.Repeat("·", int(wait/(2*time.Second))))
	}
	fmt.Println(p.Deliveries[0].Outcome, "—", p.Deliveries[0].Reason)
	// Output:
	// #1  +0s        initial      ●
	// #2  +0s        immediate    ●
	// #3  +0s        immediate    ●
	// #4  +1s        pre-backoff  ●
	// #5  +2s        pre-backoff  ●
	// #6  +3s        backoff      ●
	// #7  +5.903s    backoff      ·●
	// #8  +12.613s   backoff      ···●
	// #9  +26.936s   backoff      ·······●
	// #10 +56.484s   backoff      ··············●
	// #11 +1m56.484s backoff      ······························●
	// #12 +2m56.484s post-backoff ······························●
	// #13 +3m56.484s post-backoff ······························●
	// discarded — the retry policy is exhausted after 13 attempt(s)
}
