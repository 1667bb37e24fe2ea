package snsfake_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
	"github.com/sqsfake/sqsfake/lambdasqs"
	"github.com/sqsfake/sqsfake/snsfake"
)

// hook is an in-memory endpoint that keeps every POST it gets and answers with the next
// status of its script (200 once the script is over).
type hook struct {
	mu     sync.Mutex
	posts  []hookPost
	script []int
	onPost func(p hookPost)
}

type hookPost struct {
	header http.Header
	body   string
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p := hookPost{header: r.Header.Clone(), body: string(body)}
	h.mu.Lock()
	h.posts = append(h.posts, p)
	status := http.StatusOK
	if len(h.script) > 0 {
		status, h.script = h.script[0], h.script[1:]
	}
	on := h.onPost
	h.mu.Unlock()
	if on != nil {
		on(p)
	}
	w.WriteHeader(status)
}

func (h *hook) all() []hookPost {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookPost(nil), h.posts...)
}

const hookURL = "https://hooks.example.com/sns"

// httpSetup makes a topic and a confirmed https subscription of hookURL (by its token),
// with the subscription attributes given, and returns the topic and subscription ARNs.
func httpSetup(t *testing.T, s *snsfake.Fake, h http.Handler, attrs map[string]string) (string, string) {
	t.Helper()
	ctx := context.Background()
	s.HandleEndpoint("https://hooks.example.com", h)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	require.NoError(t, err)
	sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String(hookURL),
		Attributes: attrs, ReturnSubscriptionArn: true})
	require.NoError(t, err)
	info, _ := s.Topic(*tp.TopicArn)
	_, err = s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String(info.Subscriptions[0].Token)})
	require.NoError(t, err)
	return *tp.TopicArn, *sub.SubscriptionArn
}

func TestSubscriptionConfirmationIsPOSTedAndConfirmedByItsSubscribeURL(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	var confirmed *http.Response
	h := &hook{}
	h.onPost = func(p hookPost) {
		var env map[string]string
		if json.Unmarshal([]byte(p.body), &env) == nil && env["Type"] == "SubscriptionConfirmation" {
			resp, err := s.HTTPClient().Get(env["SubscribeURL"])
			if err == nil {
				confirmed = resp
			}
		}
	}
	s.HandleEndpoint(hookURL, h)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	require.NoError(t, err)
	out, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String(hookURL)})
	require.NoError(t, err)
	assert.Equal(t, "pending confirmation", *out.SubscriptionArn)

	posts := h.all()
	require.Len(t, posts, 1, "the confirmation is POSTed at once, and nothing else")
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(posts[0].body), &env))
	assert.Equal(t, http.Header{
		"X-Amz-Sns-Message-Type": {"SubscriptionConfirmation"}, "X-Amz-Sns-Message-Id": {env["MessageId"]},
		"X-Amz-Sns-Topic-Arn": {*tp.TopicArn}, "Content-Type": {"text/plain; charset=UTF-8"},
		"User-Agent": {"Amazon Simple Notification Service Agent"}, "Accept-Encoding": {"gzip,deflate"},
	}, posts[0].header, "AWS's headers; no x-amz-sns-subscription-arn on a confirmation")
	verifySignature(t, s, posts[0].body)

	require.NotNil(t, confirmed, "the handler GETs the SubscribeURL through HTTPClient")
	assert.Equal(t, http.StatusOK, confirmed.StatusCode)
	info, _ := s.Topic(*tp.TopicArn)
	sub := info.Subscriptions[0]
	assert.False(t, sub.Pending)
	assert.Equal(t, "false", sub.Attributes["ConfirmationWasAuthenticated"], "confirmed through the URL, unsigned")
	pubs := published(t, s, *tp.TopicArn)
	require.Len(t, pubs, 1)
	assert.True(t, pubs[0].Confirmation)
	assert.Equal(t, snsfake.Delivered, pubs[0].Deliveries[0].Outcome)
	assert.Equal(t, []snsfake.Attempt{{N: 1, Time: f.Now(), Phase: snsfake.PhaseInitial, Status: 200, Result: snsfake.AttemptDelivered}},
		pubs[0].Deliveries[0].Attempts)
}

// verifySignature checks an envelope as a stock SNS message validator does: it fetches the
// certificate at SigningCertURL (here through the fake's HTTPClient), rebuilds the string to
// sign, and verifies the signature with the certificate's key.
func verifySignature(t *testing.T, s *snsfake.Fake, body string) {
	t.Helper()
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(body), &env))
	resp, err := s.HTTPClient().Get(env["SigningCertURL"])
	require.NoError(t, err)
	certPEM, _ := io.ReadAll(resp.Body)
	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block, "SigningCertURL serves a PEM certificate")
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	keys := []string{"Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"}
	if env["Type"] != "Notification" {
		keys = []string{"Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"}
	}
	var b strings.Builder
	for _, k := range keys {
		if v, ok := env[k]; ok {
			b.WriteString(k + "\n" + v + "\n")
		}
	}
	sig, err := base64.StdEncoding.DecodeString(env["Signature"])
	require.NoError(t, err)
	alg := x509.SHA1WithRSA
	if env["SignatureVersion"] == "2" {
		alg = x509.SHA256WithRSA
	}
	require.NoError(t, cert.CheckSignature(alg, []byte(b.String()), sig), "the signature verifies")
}

func TestNotificationIsPOSTedWithAWSsHeadersAndASignedEnvelope(t *testing.T) {
	ctx := context.Background()
	s := snsfake.New(sqsfake.New())
	h := &hook{}
	topic, subArn := httpSetup(t, s, h, nil)
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(`{"order":1}`), Subject: aws.String("new order")})
	require.NoError(t, err)
	posts := h.all()
	require.Len(t, posts, 2, "the confirmation, then the notification at the publish instant")
	n := posts[1]
	assert.Equal(t, http.Header{
		"X-Amz-Sns-Message-Type": {"Notification"}, "X-Amz-Sns-Message-Id": {*out.MessageId},
		"X-Amz-Sns-Topic-Arn": {topic}, "X-Amz-Sns-Subscription-Arn": {subArn}, "Content-Type": {"text/plain; charset=UTF-8"},
		"User-Agent": {"Amazon Simple Notification Service Agent"}, "Accept-Encoding": {"gzip,deflate"},
	}, n.header)
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(n.body), &env))
	assert.Equal(t, "Notification", env["Type"])
	assert.Equal(t, `{"order":1}`, env["Message"])
	assert.Equal(t, "new order", env["Subject"])
	assert.Equal(t, "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn="+subArn, env["UnsubscribeURL"])
	verifySignature(t, s, n.body)
	snsfake.AssertDelivered(t, s, *out.MessageId, hookURL)
}

func TestRawDeliveryPOSTsTheMessageWithTheContentTypeOfTheRequestPolicy(t *testing.T) {
	ctx := context.Background()
	s := snsfake.New(sqsfake.New())
	h := &hook{}
	topic, subArn := httpSetup(t, s, h, map[string]string{"RawMessageDelivery": "true",
		"DeliveryPolicy": `{"requestPolicy":{"headerContentType":"application/json"}}`})
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(`{"order":1}`),
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}})
	require.NoError(t, err)
	posts := h.all()
	require.Len(t, posts, 2)
	assert.Equal(t, `{"order":1}`, posts[1].body)
	assert.Equal(t, http.Header{
		"X-Amz-Sns-Message-Type": {"Notification"}, "X-Amz-Sns-Message-Id": {*out.MessageId},
		"X-Amz-Sns-Topic-Arn": {topic}, "X-Amz-Sns-Subscription-Arn": {subArn}, "X-Amz-Sns-Rawdelivery": {"true"},
		"Content-Type": {"application/json"}, "User-Agent": {"Amazon Simple Notification Service Agent"}, "Accept-Encoding": {"gzip,deflate"},
	}, posts[1].header, "the recorded raw delivery has x-amz-sns-subscription-arn too")
}

// attempt is an Attempt for a table: its instant as an offset from the start.
type attempt struct {
	at     time.Duration
	phase  snsfake.Phase
	status int
	result snsfake.AttemptResult
}

func attemptsOf(start time.Time, d snsfake.Delivery) []attempt {
	var out []attempt
	for _, a := range d.Attempts {
		out = append(out, attempt{a.Time.Sub(start), a.Phase, a.Status, a.Result})
	}
	return out
}

func TestAFailingEndpointIsRetriedOnTheFakesClockByTheDefaultPolicy(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := &hook{}
	topic, _ := httpSetup(t, s, h, nil)
	h.script = []int{500, 503}
	start := f.Now()
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	p := publication(t, s, *out.MessageId)
	d := p.Deliveries[0]
	assert.Equal(t, snsfake.Retrying, d.Outcome)
	assert.Equal(t, start.Add(20*time.Second), d.NextAttempt)

	f.Advance(19 * time.Second)
	assert.Len(t, h.all(), 2, "nothing before the retry is due")
	f.Advance(time.Second)
	assert.Len(t, h.all(), 3)
	f.Advance(time.Hour)
	p = publication(t, s, *out.MessageId)
	d = p.Deliveries[0]
	assert.Equal(t, snsfake.Delivered, d.Outcome)
	assert.Equal(t, []attempt{
		{0, snsfake.PhaseInitial, 500, snsfake.AttemptFailed},
		{20 * time.Second, snsfake.PhaseBackoff, 503, snsfake.AttemptFailed},
		{40 * time.Second, snsfake.PhaseBackoff, 200, snsfake.AttemptDelivered},
	}, attemptsOf(start, d))
	assert.Len(t, h.all(), 4, "nothing after the delivery")
	for _, p := range h.all()[1:] {
		assert.Equal(t, *out.MessageId, p.header.Get("X-Amz-Sns-Message-Id"), "every retry carries the message's id")
	}
}

func TestAnExhaustedScheduleDeadLettersTheMessageAndNothingFollows(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	dlq, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	require.NoError(t, err)
	dlqArn := "arn:aws:sqs:us-east-1:123456789012:dlq"
	h := &hook{script: []int{200}} // the confirmation
	topic, _ := httpSetup(t, s, h, map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `"}`,
		"DeliveryPolicy": `{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":8,"numRetries":5,"numNoDelayRetries":1,"backoffFunction":"exponential"}}`})
	_, err = f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: dlq.QueueUrl, Attributes: map[string]string{"Policy": snsfake.QueuePolicy(dlqArn, topic)}})
	require.NoError(t, err)
	h.script = []int{502, 502, 502, 502, 502, 502, 502}
	start := f.Now()
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	f.Advance(time.Hour)
	p := publication(t, s, *out.MessageId)
	d := p.Deliveries[0]
	assert.Equal(t, []attempt{
		{0, snsfake.PhaseInitial, 502, snsfake.AttemptFailed},
		{0, snsfake.PhaseImmediate, 502, snsfake.AttemptFailed},
		{time.Second, snsfake.PhaseBackoff, 502, snsfake.AttemptFailed},
		{3 * time.Second, snsfake.PhaseBackoff, 502, snsfake.AttemptFailed},  // 1 s + 2 s
		{7 * time.Second, snsfake.PhaseBackoff, 502, snsfake.AttemptFailed},  // + 4 s
		{15 * time.Second, snsfake.PhaseBackoff, 502, snsfake.AttemptFailed}, // + 8 s
	}, attemptsOf(start, d))
	assert.Equal(t, snsfake.DeadLettered, d.Outcome)
	assert.Equal(t, "the retry policy is exhausted after 6 attempt(s)", d.Reason)
	assert.Equal(t, dlqArn, d.DeadLetterQueue)
	msgs := receiveAll(t, f, *dlq.QueueUrl)
	require.Len(t, msgs, 1)
	assert.Equal(t, d.Body, *msgs[0].Body, "the DLQ gets the body the endpoint would have got")
	assert.Equal(t, d.SQSMessageID, *msgs[0].MessageId)
	assert.Len(t, h.all(), 7, "the confirmation and six attempts, nothing after")
}

func TestA4xxIsAPermanentFailureButA429IsRetried(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		status  int
		outcome snsfake.Outcome
		posts   int
	}{
		{404, snsfake.Discarded, 1},
		{403, snsfake.Discarded, 1},
		{429, snsfake.Delivered, 2},
		{302, snsfake.Delivered, 1}, // inside 200–4xx: no failure, and no redirect is followed
	} {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			f := sqsfake.New()
			s := snsfake.New(f)
			h := &hook{}
			topic, _ := httpSetup(t, s, h, nil)
			h.script = []int{c.status}
			out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
			require.NoError(t, err)
			f.Advance(time.Hour)
			p := publication(t, s, *out.MessageId)
			assert.Equal(t, c.outcome, p.Deliveries[0].Outcome, p.Deliveries[0].String())
			assert.Len(t, h.all(), 1+c.posts)
		})
	}
}

func TestAFaultOnSNSDeliverFailsAttemptsWithoutAFailingEndpoint(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := &hook{}
	topic, _ := httpSetup(t, s, h, nil)
	remove := f.InjectFault(sqsfake.Fault{Operation: "SNS.Deliver", Err: snsfake.EndpointStatus(503), Times: 2})
	defer remove()
	start := f.Now()
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	f.Advance(time.Minute)
	p := publication(t, s, *out.MessageId)
	assert.Equal(t, []attempt{
		{0, snsfake.PhaseInitial, 503, snsfake.AttemptFailed},
		{20 * time.Second, snsfake.PhaseBackoff, 503, snsfake.AttemptFailed},
		{40 * time.Second, snsfake.PhaseBackoff, 200, snsfake.AttemptDelivered},
	}, attemptsOf(start, p.Deliveries[0]))
	assert.Len(t, h.all(), 2, "the faults answered for the endpoint")
	sqsfake.AssertCallCount(t, f, sqsfake.CallFilter{Operation: "SNS.Deliver"}, 4) // the confirmation, three attempts
}

func TestATimeoutLastsFifteenSecondsOnTheClock(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := &hook{}
	topic, _ := httpSetup(t, s, h, nil)
	remove := f.InjectFault(sqsfake.Fault{Operation: "SNS.Deliver", Latency: 15 * time.Second, Times: 1})
	defer remove()
	start := f.Now()
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	f.Advance(time.Minute)
	p := publication(t, s, *out.MessageId)
	d := p.Deliveries[0]
	assert.Equal(t, []attempt{
		{0, snsfake.PhaseInitial, 0, snsfake.AttemptFailed},
		{35 * time.Second, snsfake.PhaseBackoff, 200, snsfake.AttemptDelivered}, // 20 s after the timeout ended
	}, attemptsOf(start, d))
	assert.Contains(t, d.Attempts[0].Error, "never reached SNS")
	assert.Len(t, h.all(), 3, "the endpoint got the timed-out POST too")
}

func TestAHangingOrPanickingHandlerCannotHangTheTest(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	release := make(chan struct{})
	defer close(release)
	var calls int
	var mu sync.Mutex
	huge := []byte(strings.Repeat("x", 1<<20))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch n {
		case 1: // the confirmation
		case 2:
			<-release // hangs until the test ends
		case 3:
			panic("boom")
		default:
			for range 16 {
				_, _ = w.Write(huge) // 16 MiB of answer, counted and discarded
			}
		}
	})
	s.SetHTTPDelivery(snsfake.HTTPDelivery{HandlerWait: 250 * time.Millisecond})
	topic, _ := httpSetup(t, s, h, nil)
	start := f.Now()
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	f.Advance(time.Minute)
	p := publication(t, s, *out.MessageId)
	d := p.Deliveries[0]
	assert.Equal(t, []attempt{
		{0, snsfake.PhaseInitial, 0, snsfake.AttemptFailed},
		{35 * time.Second, snsfake.PhaseBackoff, 0, snsfake.AttemptFailed},
		{55 * time.Second, snsfake.PhaseBackoff, 200, snsfake.AttemptDelivered},
	}, attemptsOf(start, d))
	assert.Contains(t, d.Attempts[0].Error, "no answer within 15 s")
	assert.Equal(t, "the endpoint dropped the connection: its handler panicked: boom", d.Attempts[1].Error)
}

func TestTheThrottlePolicyCapsDeliveriesPerSecond(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := &hook{}
	topic, _ := httpSetup(t, s, h, map[string]string{"DeliveryPolicy": `{"throttlePolicy":{"maxReceivesPerSecond":2}}`})
	start := f.Now()
	var ids []string
	for i := range 5 {
		out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(fmt.Sprint(i))})
		require.NoError(t, err)
		ids = append(ids, *out.MessageId)
	}
	f.Advance(10 * time.Second)
	var at []time.Duration
	for _, id := range ids {
		p := publication(t, s, id)
		at = append(at, p.Deliveries[0].Attempts[0].Time.Sub(start))
	}
	assert.Equal(t, []time.Duration{0, 0, time.Second, time.Second, 2 * time.Second}, at)
}

func TestUnsubscribingStopsTheRetries(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := &hook{}
	topic, subArn := httpSetup(t, s, h, nil)
	h.script = []int{500}
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	_, err = s.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String(subArn)})
	require.NoError(t, err)
	f.Advance(time.Hour)
	p := publication(t, s, *out.MessageId)
	assert.Equal(t, snsfake.Discarded, p.Deliveries[0].Outcome)
	assert.Equal(t, "the subscription was deleted", p.Deliveries[0].Reason)
	assert.Len(t, h.all(), 2)
}

func TestAnUnregisteredEndpointFailsAsARefusedConnection(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String("http://nowhere.example/x")})
	require.NoError(t, err)
	f.Advance(time.Hour)
	pubs := published(t, s, *tp.TopicArn)
	require.Len(t, pubs, 1)
	d := pubs[0].Deliveries[0]
	assert.Equal(t, snsfake.Discarded, d.Outcome)
	assert.Len(t, d.Attempts, 4, "the confirmation is retried by the default policy")
	assert.Equal(t, "connection refused: no handler is registered for http://nowhere.example/x (snsfake.Fake.HandleEndpoint), and HTTPDelivery.Network is off",
		d.Attempts[0].Error)
	assert.Equal(t, "the retry policy is exhausted after 4 attempt(s); SNS does not dead-letter a confirmation", d.Reason)
}

func TestEveryClockMoveDrivesTheRetries(t *testing.T) {
	moves := []struct {
		name string
		move func(f *sqsfake.Fake)
		opts []sqsfake.Option
	}{
		{"one two-minute Fake.Advance", func(f *sqsfake.Fake) { f.Advance(2 * time.Minute) }, nil},
		{"120 one-second Fake.Advance", func(f *sqsfake.Fake) {
			for range 120 {
				f.Advance(time.Second)
			}
		}, nil},
		{"VirtualClock.Add of two minutes", func(f *sqsfake.Fake) { f.Clock().(*sqsfake.VirtualClock).Add(2 * time.Minute) }, nil},
		{"uneven VirtualClock.Add", func(f *sqsfake.Fake) {
			for _, d := range []time.Duration{700 * time.Millisecond, 0, 29 * time.Second, 1500 * time.Millisecond, 88*time.Second + 800*time.Millisecond} {
				f.Clock().(*sqsfake.VirtualClock).Add(d)
			}
		}, nil},
		{"one two-minute Fake.Advance on a benbjohnson mock", func(f *sqsfake.Fake) { f.Advance(2 * time.Minute) }, mockOpts()},
		{"the benbjohnson mock's own Add of two minutes", func(f *sqsfake.Fake) { mockOf(f).Add(2 * time.Minute) }, mockOpts()},
		{"120 one-second Add of the benbjohnson mock", func(f *sqsfake.Fake) {
			for range 120 {
				mockOf(f).Add(time.Second)
			}
		}, mockOpts()},
		{"the benbjohnson mock's own Set to two minutes on", func(f *sqsfake.Fake) { mockOf(f).Set(sqsfake.DefaultStart.Add(2 * time.Minute)) }, mockOpts()},
		{"uneven Add of the benbjohnson mock with a CatchUp between", func(f *sqsfake.Fake) {
			m := mockOf(f)
			m.Add(3 * time.Second)
			m.Add(29*time.Second + 500*time.Millisecond)
			companion.CatchUp(f)
			m.Add(87*time.Second + 500*time.Millisecond)
		}, mockOpts()},
	}
	var want []snsfake.Publication
	for i, m := range moves {
		t.Run(m.name, func(t *testing.T) {
			f := sqsfake.New(m.opts...)
			got := clockScene(t, f, m.move)
			if i == 0 {
				want = got
				start := sqsfake.DefaultStart
				d := got[1].Deliveries[0]
				// 2 at once, 2 a second apart, 3 from 1 to 20 s geometrically (1, 4.472, 20 s),
				// 2 20 s apart.
				assert.Equal(t, []attempt{
					{0, snsfake.PhaseInitial, 503, snsfake.AttemptFailed},
					{0, snsfake.PhaseImmediate, 503, snsfake.AttemptFailed}, {0, snsfake.PhaseImmediate, 503, snsfake.AttemptFailed},
					{time.Second, snsfake.PhasePreBackoff, 503, snsfake.AttemptFailed}, {2 * time.Second, snsfake.PhasePreBackoff, 503, snsfake.AttemptFailed},
					{3 * time.Second, snsfake.PhaseBackoff, 503, snsfake.AttemptFailed}, {7472 * time.Millisecond, snsfake.PhaseBackoff, 503, snsfake.AttemptFailed},
					{27472 * time.Millisecond, snsfake.PhaseBackoff, 503, snsfake.AttemptFailed},
					{47472 * time.Millisecond, snsfake.PhasePostBackoff, 503, snsfake.AttemptFailed},
					{67472 * time.Millisecond, snsfake.PhasePostBackoff, 503, snsfake.AttemptFailed},
				}, attemptsOf(start, d))
				assert.Equal(t, snsfake.Discarded, d.Outcome)
				// The second message, published by the endpoint at +3 s, is delivered at its
				// second attempt, at once.
				assert.Equal(t, []attempt{
					{3 * time.Second, snsfake.PhaseInitial, 503, snsfake.AttemptFailed},
					{3 * time.Second, snsfake.PhaseImmediate, 200, snsfake.AttemptDelivered},
				}, attemptsOf(start, got[2].Deliveries[0]))
				return
			}
			assert.Equal(t, want, got, "the same attempts at the same instants, however the clock moved")
		})
	}
	t.Run("a RealClock in a testing/synctest bubble", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := sqsfake.New(sqsfake.WithClock(sqsfake.RealClock{}))
			start := f.Now()
			got := clockScene(t, f, func(f *sqsfake.Fake) {
				time.Sleep(2 * time.Minute)
				synctest.Wait()
			})
			shift := start.Sub(sqsfake.DefaultStart)
			require.Len(t, got, len(want))
			for i := range want {
				assert.Equal(t, attemptsOf(sqsfake.DefaultStart, want[i].Deliveries[0]), attemptsOf(sqsfake.DefaultStart.Add(shift), got[i].Deliveries[0]))
			}
		})
	})
}

func mockOpts() []sqsfake.Option { return []sqsfake.Option{sqsfake.WithClock(sqsfake.NewMockClock())} }

func mockOf(f *sqsfake.Fake) *clock.Mock { return f.Clock().(*clock.Mock) }

// clockScene publishes once to an endpoint that always fails; at its sixth attempt the
// endpoint publishes a second message, which fails once and is delivered at its immediate
// retry. It moves the clock with move, and returns the publications.
func clockScene(t *testing.T, f *sqsfake.Fake, move func(f *sqsfake.Fake)) []snsfake.Publication {
	t.Helper()
	ctx := context.Background()
	s := snsfake.New(f)
	var topic string
	var mu sync.Mutex
	counts := map[string]int{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env map[string]string
		_ = json.NewDecoder(r.Body).Decode(&env)
		if env["Type"] != "Notification" {
			return
		}
		mu.Lock()
		counts[env["Message"]]++
		n := counts[env["Message"]]
		mu.Unlock()
		if env["Message"] == "first" && n == 6 {
			// The handler's call to the fake, with its request's context: part of the step.
			_, err := s.Publish(r.Context(), &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("second")})
			assert.NoError(t, err)
		}
		if env["Message"] == "second" && n == 2 {
			return
		}
		w.WriteHeader(503)
	})
	topic, _ = httpSetup(t, s, h, map[string]string{"DeliveryPolicy": `{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":20,"numRetries":9,` +
		`"numNoDelayRetries":2,"numMinDelayRetries":2,"numMaxDelayRetries":2,"backoffFunction":"geometric"}}`})
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("first")})
	require.NoError(t, err)
	move(f)
	return published(t, s, topic)
}

func TestHTTPAssertionsPrintEveryAttempt(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := &hook{}
	topic, subArn := httpSetup(t, s, h, nil)
	h.script = []int{500}
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	var r recorder
	assert.True(t, snsfake.AssertOutcome(&r, s, *out.MessageId, hookURL, snsfake.Retrying))
	assert.True(t, snsfake.AssertAttempts(&r, s, *out.MessageId, hookURL, 1))
	require.Empty(t, r.failures)

	assert.False(t, snsfake.AssertOutcome(&r, s, *out.MessageId, hookURL, snsfake.Delivered))
	require.Len(t, r.failures, 1)
	assert.Equal(t, "snsfake: expected message "+*out.MessageId+" to be delivered at "+hookURL+", but it is retrying:\n"+
		"  message "+*out.MessageId+" at 2025-01-01T00:00:00.000Z \"hi\"\n"+
		"    "+subArn+" → "+hookURL+": retrying; next attempt at 2025-01-01T00:00:20.000Z\n"+
		"      #1 2025-01-01T00:00:00.000Z initial: 500 failed", r.failures[0])

	f.Advance(20 * time.Second)
	assert.True(t, snsfake.AssertOutcome(&r, s, *out.MessageId, hookURL, snsfake.Delivered))
	assert.False(t, snsfake.AssertAttempts(&r, s, *out.MessageId, hookURL, 1))
	assert.False(t, snsfake.AssertAttempts(&r, s, *out.MessageId, "https://elsewhere.example.com", 1))
	assert.False(t, snsfake.AssertOutcome(&r, s, "no-such-id", hookURL, snsfake.Delivered))
	require.Len(t, r.failures, 4)
	assert.Contains(t, r.failures[1], "expected 1 attempt(s) to deliver message "+*out.MessageId+" to "+hookURL+", got 2:")
	assert.Contains(t, r.failures[2], "no subscription of its topic had that endpoint when it was published")
	assert.Contains(t, r.failures[3], "nothing was published with MessageId no-such-id")
}

// An endpoint that forwards what SNS POSTs into a queue a Lambda trigger consumes: the
// trigger invokes at the instant of the attempt that succeeded, inside the same move of the
// clock, on a VirtualClock and on a benbjohnson mock alike.
func TestAWebhookFeedingALambdaTriggerActsAtTheAttemptsInstant(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []sqsfake.Option
		move func(f *sqsfake.Fake)
	}{
		{"Fake.Advance", nil, func(f *sqsfake.Fake) { f.Advance(time.Minute) }},
		{"the benbjohnson mock's own Add", mockOpts(), func(f *sqsfake.Fake) { mockOf(f).Add(time.Minute); companion.CatchUp(f) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			f := sqsfake.New(c.opts...)
			s := snsfake.New(f)
			q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
			require.NoError(t, err)
			failed := false
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var env map[string]string
				_ = json.NewDecoder(r.Body).Decode(&env)
				if env["Type"] != "Notification" {
					return
				}
				if !failed {
					failed = true
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				_, err := f.SendMessage(r.Context(), &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(env["Message"])})
				assert.NoError(t, err)
			})
			topic, _ := httpSetup(t, s, h, nil)
			var got []string
			trig, err := lambdasqs.New(f, "jobs", func(ctx context.Context, ev events.SQSEvent) error {
				for _, m := range ev.Records {
					got = append(got, m.Body)
				}
				return nil
			}, lambdasqs.Config{})
			require.NoError(t, err)
			defer trig.Close()
			start := f.Now()
			_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("job 1")})
			require.NoError(t, err)
			c.move(f)
			require.NoError(t, trig.Err())
			invs := trig.Invocations()
			require.Len(t, invs, 1)
			assert.Equal(t, start.Add(20*time.Second), invs[0].At, "invoked at the retry's instant")
			assert.Equal(t, []string{"job 1"}, got)
		})
	}
}

// With Network, an endpoint no handler is registered for gets a real POST — here a loopback
// listener: a redirect is not followed (a 3xx is no failure), a huge answer is cut short,
// and a host that is not loopback is refused at Subscribe.
func TestNetworkDeliveryReachesLoopbackOnlyAndBoundsWhatItReads(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	s.SetHTTPDelivery(snsfake.HTTPDelivery{Network: true})
	var mu sync.Mutex
	hits := map[string]int{}
	huge := []byte(strings.Repeat("x", 1<<20))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		case "/huge":
			for range 64 { // 64 MiB, of which the fake reads 64 KiB
				if _, err := w.Write(huge); err != nil {
					return
				}
			}
		}
	}))
	defer srv.Close()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	for _, path := range []string{"/redirect", "/huge"} {
		sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String(srv.URL + path),
			ReturnSubscriptionArn: true})
		require.NoError(t, err)
		attrs, err := s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn})
		require.NoError(t, err)
		assert.Equal(t, "true", attrs.Attributes["PendingConfirmation"], "the listener did not confirm")
	}
	pubs := published(t, s, *tp.TopicArn)
	require.Len(t, pubs, 2)
	for _, p := range pubs {
		d := p.Deliveries[0]
		assert.Equal(t, snsfake.Delivered, d.Outcome, d.String())
	}
	assert.Equal(t, 302, pubs[0].Deliveries[0].Attempts[0].Status)
	mu.Lock()
	assert.Equal(t, map[string]int{"/redirect": 1, "/huge": 1}, hits, "no redirect followed")
	mu.Unlock()

	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String("https://hooks.example.com/x")})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Unreachable Endpoint")
	// In memory, a registered handler takes precedence over the network, whatever the host.
	s.HandleEndpoint("https://hooks.example.com", &hook{})
	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String("https://hooks.example.com/x")})
	require.NoError(t, err)
}

func TestPublicationPageShowsHTTPDeliveriesAsTheyStand(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := &hook{}
	topic, _ := httpSetup(t, s, h, nil)
	h.script = []int{503}
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("hi")})
	require.NoError(t, err)
	f.Advance(time.Minute)
	page, err := s.PublicationPage(topic, 0, 10)
	require.NoError(t, err)
	require.NotEmpty(t, page.Publications)
	d := page.Publications[0].Deliveries[0] // newest first
	assert.Equal(t, snsfake.Delivered, d.Outcome)
	assert.Len(t, d.Attempts, 2)
}
