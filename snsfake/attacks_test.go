package snsfake_test

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/internal/memtest"
	"github.com/sqsfake/sqsfake/snsfake"
)

// The attacks of issue 29 on the SNS side, as wire tests against snsfake's Handler composed
// with the queue fake's, as cmd/sqsfake serves them (cmd/sqsfake/sns_attacks_test.go drives
// them through the server).

const (
	ownerKey, ownerSecret = "AKIDOWNER", "owner-secret"
	ownerAccount          = "111122223333"
	bobKey, bobSecret     = "AKIDBOB", "bob-secret"
	bobAccount            = "444455556666"
)

var attackCredentials = []sqsfake.Credential{
	{AccessKeyID: ownerKey, SecretAccessKey: ownerSecret, AccountID: ownerAccount},
	{AccessKeyID: bobKey, SecretAccessKey: bobSecret, AccountID: bobAccount},
}

// multibyteText is n bytes of UTF-8 text, mostly characters of two and three bytes, which a
// form encodes as six and nine bytes.
func multibyteText(n int) string {
	var b strings.Builder
	for b.Len()+3 <= n {
		if b.Len()%5 == 0 {
			b.WriteString("é")
		} else {
			b.WriteString("€")
		}
	}
	for b.Len() < n {
		b.WriteByte('a')
	}
	return b.String()
}

// post sends a form to h, signed as key with secret for service when key is not "".
func post(t *testing.T, h http.Handler, path, form, key, secret, service string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://localhost"+path, strings.NewReader(form))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	if key != "" {
		sum := sha256.Sum256([]byte(form))
		require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
			r, hex.EncodeToString(sum[:]), service, "us-east-1", time.Now()))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Attack 1: the router read at most 2 MiB of a form and handed SQS only that: a 1 MiB
// multibyte message sent with the query protocol (a 3 MiB form) was stored cut short with a
// 200, and a signed one was refused. It must reach the queue whole, lenient and signed.
func TestAQueryMessageOfOneMiBPassesTheRouterWhole(t *testing.T) {
	body := multibyteText(1 << 20)
	sum := md5.Sum([]byte(body))
	for _, signed := range []bool{false, true} {
		t.Run(map[bool]string{false: "lenient", true: "signed"}[signed], func(t *testing.T) {
			var opts []sqsfake.Option
			key, secret, acct := "", "", "123456789012"
			if signed {
				opts = append(opts, sqsfake.WithCredentials(attackCredentials...))
				key, secret, acct = ownerKey, ownerSecret, ownerAccount
			}
			f := sqsfake.New(opts...)
			h := snsfake.New(f).Handler(f.Handler())
			ctx := context.Background()
			queueURL := "http://localhost/" + acct + "/big"
			w := post(t, h, "/", "Action=CreateQueue&Version=2012-11-05&QueueName=big", key, secret, "sqs")
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			form := "Action=SendMessage&Version=2012-11-05&QueueUrl=" + url.QueryEscape(queueURL) + "&MessageBody=" + url.QueryEscape(body)
			require.Greater(t, len(form), 3<<20, "a form over 3 MiB")
			w = post(t, h, "/", form, key, secret, "sqs")
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), "<MD5OfMessageBody>"+hex.EncodeToString(sum[:])+"</MD5OfMessageBody>")
			got := receiveAllAs(t, ctx, f, acct, "big")
			require.Len(t, got, 1)
			assert.Equal(t, len(body), len(*got[0].Body))
			assert.True(t, *got[0].Body == body, "the body read back is the one sent")
			assert.Equal(t, hex.EncodeToString(sum[:]), *got[0].MD5OfBody)
		})
	}
}

// receiveAllAs receives the messages of the queue name in account, as that account.
func receiveAllAs(t *testing.T, ctx context.Context, f *sqsfake.Fake, acct, name string) []sqstypes.Message {
	t.Helper()
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("https://sqs.us-east-1.amazonaws.com/" + acct + "/" + name),
		MaxNumberOfMessages: 10}, sqsfake.ActAs(sqsfake.Identity{AccountID: acct}))
	require.NoError(t, err)
	return out.Messages
}

// Over the SQS door's cap a form is refused whole with 413, whichever service it names.
func TestAFormOverMaxRequestBytesIsRefusedWith413(t *testing.T) {
	f := sqsfake.New()
	h := snsfake.New(f).Handler(f.Handler())
	pad := strings.Repeat("x", sqsfake.MaxRequestBytes)
	for _, form := range []string{
		"Action=SendMessage&Version=2012-11-05&QueueUrl=q&MessageBody=" + pad,
		"Action=Publish&Version=2010-03-31&TopicArn=t&Message=" + pad,
		"Action=Publish&Message=" + pad,
	} {
		w := post(t, h, "/", form, "", "", "")
		assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, form[:40])
		_, _ = io.Copy(io.Discard, w.Body)
	}
}

// The SNS side of attack 1: a signed Publish of a 1 MiB multibyte message (a topic whose
// MaximumMessageSize allows it) reaches a raw subscription's queue whole.
func TestASignedPublishOfOneMiBIsDeliveredWhole(t *testing.T) {
	f := sqsfake.New(sqsfake.WithCredentials(attackCredentials...))
	h := snsfake.New(f).Handler(f.Handler())
	topic := "arn:aws:sns:us-east-1:" + ownerAccount + ":big"
	queue := "arn:aws:sqs:us-east-1:" + ownerAccount + ":big"
	for _, form := range []struct{ form, service string }{
		{"Action=CreateTopic&Version=2010-03-31&Name=big&Attributes.entry.1.key=MaximumMessageSize&Attributes.entry.1.value=1048576", "sns"},
		{"Action=CreateQueue&Version=2012-11-05&QueueName=big&Attribute.1.Name=Policy&Attribute.1.Value=" + url.QueryEscape(snsfake.QueuePolicy(queue, topic)), "sqs"},
		{"Action=Subscribe&Version=2010-03-31&TopicArn=" + url.QueryEscape(topic) + "&Protocol=sqs&Endpoint=" + url.QueryEscape(queue) +
			"&Attributes.entry.1.key=RawMessageDelivery&Attributes.entry.1.value=true", "sns"},
	} {
		w := post(t, h, "/", form.form, ownerKey, ownerSecret, form.service)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	}
	body := multibyteText(1 << 20)
	sum := md5.Sum([]byte(body))
	w := post(t, h, "/", "Action=Publish&Version=2010-03-31&TopicArn="+url.QueryEscape(topic)+"&Message="+url.QueryEscape(body), ownerKey, ownerSecret, "sns")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	got := receiveAllAs(t, context.Background(), f, ownerAccount, "big")
	require.Len(t, got, 1)
	assert.True(t, *got[0].Body == body, "the body read back is the one published")
	assert.Equal(t, hex.EncodeToString(sum[:]), *got[0].MD5OfBody)
}

// errorOf reads the code and message of an XML error answer.
func errorOf(body string) (code, message string) {
	cut := func(tag string) string {
		_, after, _ := strings.Cut(body, "<"+tag+">")
		v, _, _ := strings.Cut(after, "</"+tag+">")
		return html.UnescapeString(v)
	}
	return cut("Code"), cut("Message")
}

// Attack 2: bob named alice's queue in an endpoint ARN that names his own account
// (…:<bob>:<alice>/alice-inbox), was confirmed at once, and every delivery landed in alice's
// queue, whose URL parser reads the last two path segments; deadLetterTargetArn likewise. An
// sqs endpoint and a dead-letter target must be well-formed queue ARNs.
func TestAnEndpointARNThatIsNoQueueARNIsRefused(t *testing.T) {
	f := sqsfake.New(sqsfake.WithCredentials(attackCredentials...))
	h := snsfake.New(f).Handler(f.Handler())
	alice := "arn:aws:sqs:us-east-1:" + ownerAccount + ":alice-inbox"
	open := `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + alice + `"}]}`
	w := post(t, h, "/", "Action=CreateQueue&Version=2012-11-05&QueueName=alice-inbox&Attribute.1.Name=Policy&Attribute.1.Value="+url.QueryEscape(open), ownerKey, ownerSecret, "sqs")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	bobQueue := "arn:aws:sqs:us-east-1:" + bobAccount + ":bob-q"
	w = post(t, h, "/", "Action=CreateQueue&Version=2012-11-05&QueueName=bob-q&Attribute.1.Name=Policy&Attribute.1.Value="+url.QueryEscape(snsfake.QueuePolicy(bobQueue)), bobKey, bobSecret, "sqs")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	w = post(t, h, "/", "Action=CreateTopic&Version=2010-03-31&Name=bobs", bobKey, bobSecret, "sns")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	topic := "arn:aws:sns:us-east-1:" + bobAccount + ":bobs"
	subscribe := func(endpoint string) *httptest.ResponseRecorder {
		return post(t, h, "/", "Action=Subscribe&Version=2010-03-31&TopicArn="+url.QueryEscape(topic)+"&Protocol=sqs&Endpoint="+url.QueryEscape(endpoint), bobKey, bobSecret, "sns")
	}
	bad := []string{
		"arn:aws:sqs:us-east-1:" + bobAccount + ":" + ownerAccount + "/alice-inbox",
		"arn:aws:sqs:us-east-1:" + bobAccount + ":x/../" + ownerAccount + "/alice-inbox",
		"arn:aws:sqs:us-east-1:" + bobAccount + ":alice-inbox/",
		"arn:aws:sqs:us-east-1:" + bobAccount + ":alice-inbox:x",
		"arn:aws:sqs:us-east-1:" + bobAccount[1:] + ":alice-inbox",
		"arn:aws:sqs:us-east-1:" + bobAccount + "x:alice-inbox",
		"arn:aws:sqs:US-EAST-1:" + bobAccount + ":alice-inbox",
		"arn:aws:sqs:us-east-1/x:" + bobAccount + ":alice-inbox",
		"arn:aws-cn:sqs:us-east-1:" + bobAccount + ":alice-inbox",
		"arn:aws:sqs::" + bobAccount + ":alice-inbox",
		"arn:aws:sqs:us-east-1:" + bobAccount + ":" + strings.Repeat("q", 81),
		"arn:aws:sqs:us-east-1:" + bobAccount + ":.fifo",
		"arn:aws:sqs:us-east-1:" + bobAccount + ":a b",
		"arn:aws:sns:us-east-1:" + bobAccount + ":alice-inbox",
		"https://sqs.us-east-1.amazonaws.com/" + ownerAccount + "/alice-inbox",
	}
	for _, endpoint := range bad {
		w := subscribe(endpoint)
		code, msg := errorOf(w.Body.String())
		assert.Equal(t, []any{http.StatusBadRequest, "InvalidParameter", "Invalid parameter: SQS endpoint ARN"}, []any{w.Code, code, msg}, endpoint)
	}
	w = subscribe(bobQueue)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	sub := between(w.Body.String(), "<SubscriptionArn>", "</SubscriptionArn>")
	for _, endpoint := range bad[:13] {
		policy, _ := json.Marshal(map[string]string{"deadLetterTargetArn": endpoint})
		w := post(t, h, "/", "Action=SetSubscriptionAttributes&Version=2010-03-31&SubscriptionArn="+url.QueryEscape(sub)+
			"&AttributeName=RedrivePolicy&AttributeValue="+url.QueryEscape(string(policy)), bobKey, bobSecret, "sns")
		code, msg := errorOf(w.Body.String())
		assert.Equal(t, []any{http.StatusBadRequest, "InvalidParameter", "Invalid parameter: RedrivePolicy: deadLetterTargetArn is an invalid arn"},
			[]any{w.Code, code, msg}, endpoint)
	}
	w = post(t, h, "/", "Action=Publish&Version=2010-03-31&TopicArn="+url.QueryEscape(topic)+"&Message=bob", bobKey, bobSecret, "sns")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Empty(t, receiveAllAs(t, context.Background(), f, ownerAccount, "alice-inbox"), "nothing of bob's in alice's queue")
	assert.Len(t, receiveAllAs(t, context.Background(), f, bobAccount, "bob-q"), 1)
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}

// get sends an unsigned GET to h.
func get(h http.Handler, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://localhost"+target, nil))
	return w
}

// Attack 3: confirmation tokens came from the seed, which is public by default and
// recoverable from a MessageId otherwise: bob replayed the server's calls on a fake of his own
// with its seed, read the token of his pending subscription of alice's queue, and confirmed it
// with the unsigned SubscribeURL. In signed mode a token is keyed by the server's secrets.
func TestAConfirmationTokenForgedWithTheSeedConfirmsNothing(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithSeed(42), sqsfake.WithCredentials(attackCredentials...))
	h := snsfake.New(f).Handler(f.Handler())
	alice := "arn:aws:sqs:us-east-1:" + ownerAccount + ":alice-inbox"
	open := `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + alice + `"}]}`
	w := post(t, h, "/", "Action=CreateQueue&Version=2012-11-05&QueueName=alice-inbox&Attribute.1.Name=Policy&Attribute.1.Value="+url.QueryEscape(open), ownerKey, ownerSecret, "sqs")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	topic := "arn:aws:sns:us-east-1:" + bobAccount + ":bobs"
	calls := []string{"Action=CreateTopic&Version=2010-03-31&Name=bobs",
		"Action=Subscribe&Version=2010-03-31&TopicArn=" + url.QueryEscape(topic) + "&Protocol=sqs&Endpoint=" + url.QueryEscape(alice)}
	for _, form := range calls {
		w := post(t, h, "/", form, bobKey, bobSecret, "sns")
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	}

	// Bob's replay, on a fake of his own with the server's seed.
	replayFake := sqsfake.New(sqsfake.WithSeed(42))
	replay := snsfake.New(replayFake)
	rh := replay.Handler(replayFake.Handler())
	for _, form := range calls {
		r := httptest.NewRequest(http.MethodPost, "http://localhost/", strings.NewReader(form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+bobAccount+"/20260101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=0")
		w := httptest.NewRecorder()
		rh.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	}
	forged := replay.Topics()[0].Subscriptions[0].Token
	require.NotEmpty(t, forged)

	w = get(h, "/?Action=ConfirmSubscription&TopicArn="+url.QueryEscape(topic)+"&Token="+forged)
	code, msg := errorOf(w.Body.String())
	assert.Equal(t, []any{http.StatusBadRequest, "InvalidParameter", "Invalid parameter: Token"}, []any{w.Code, code, msg})
	w = post(t, h, "/", "Action=ConfirmSubscription&Version=2010-03-31&TopicArn="+url.QueryEscape(topic)+"&Token="+forged, bobKey, bobSecret, "sns")
	code, msg = errorOf(w.Body.String())
	assert.Equal(t, []any{http.StatusBadRequest, "InvalidParameter", "Invalid parameter: Token"}, []any{w.Code, code, msg})
	_ = ctx
	subs := snsfakeTopics(t, h, bobKey, bobSecret, topic)
	assert.Contains(t, subs, "<SubscriptionArn>PendingConfirmation</SubscriptionArn>", "the subscription is still pending")
}

// snsfakeTopics lists a topic's subscriptions, signed as key.
func snsfakeTopics(t *testing.T, h http.Handler, key, secret, topic string) string {
	t.Helper()
	w := post(t, h, "/", "Action=ListSubscriptionsByTopic&Version=2010-03-31&TopicArn="+url.QueryEscape(topic), key, secret, "sns")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	return w.Body.String()
}

// A token confirms its own subscription and no other, and only while it is valid: through
// ConfirmSubscription with its own topic; through the SubscribeURL with a topic ARN of its
// topic's region and account (AWS confirmed one with another name there).
func TestATokenConfirmsOnlyItsOwnSubscriptionWhileValid(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := s.Handler(f.Handler())
	var topics [2]string
	for i, name := range []string{"one", "two"} {
		tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
		require.NoError(t, err)
		topics[i] = *tp.TopicArn
		_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:222222222222:q")})
		require.NoError(t, err)
	}
	one, _ := s.Topic(topics[0])
	token := one.Subscriptions[0].Token
	require.Len(t, token, 128)

	_, err := s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: aws.String(topics[1]), Token: aws.String(token)})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Token")
	altered := []byte(token)
	altered[127] ^= 1
	_, err = s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: aws.String(topics[0]), Token: aws.String(string(altered))})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Token")
	w := get(h, "/?Action=ConfirmSubscription&TopicArn="+url.QueryEscape("arn:aws:sns:us-east-1:999999999999:one")+"&Token="+token)
	code, msg := errorOf(w.Body.String())
	assert.Equal(t, []any{http.StatusBadRequest, "InvalidParameter", "Invalid parameter: Token"}, []any{w.Code, code, msg}, "another account's topic")
	for _, tp := range topics {
		info, _ := s.Topic(tp)
		assert.True(t, info.Subscriptions[0].Pending, tp)
	}

	w = get(h, "/?Action=ConfirmSubscription&TopicArn="+url.QueryEscape("arn:aws:sns:us-east-1:123456789012:another-name")+"&Token="+token)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), "<SubscriptionArn>"+one.Subscriptions[0].Arn+"</SubscriptionArn>")
	info, _ := s.Topic(topics[0])
	assert.False(t, info.Subscriptions[0].Pending)
	info, _ = s.Topic(topics[1])
	assert.True(t, info.Subscriptions[0].Pending, "the other topic's subscription")

	f.Advance(48 * time.Hour)
	w = get(h, "/?Action=ConfirmSubscription&TopicArn="+url.QueryEscape(topics[0])+"&Token="+token)
	code, msg = errorOf(w.Body.String())
	assert.Equal(t, []any{http.StatusBadRequest, "InvalidParameter", "Invalid parameter: Token"}, []any{w.Code, code, msg}, "an expired token reads no ARN")
	two, _ := s.Topic(topics[1])
	_, err = s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: aws.String(topics[1]), Token: aws.String(two.Subscriptions[0].Token)})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Token")
}

// In memory the tokens are the seed's, run after run; a Reset changes them, and a token
// issued before it names nothing after it.
func TestTokensAreTheSeedsInMemoryAndChangeWithReset(t *testing.T) {
	ctx := context.Background()
	run := func(f *sqsfake.Fake, s *snsfake.Fake) string {
		tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
		require.NoError(t, err)
		_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:222222222222:q")})
		require.NoError(t, err)
		info, _ := s.Topic(*tp.TopicArn)
		return info.Subscriptions[0].Token
	}
	f1, f2 := sqsfake.New(sqsfake.WithSeed(7)), sqsfake.New(sqsfake.WithSeed(7))
	s1, s2 := snsfake.New(f1), snsfake.New(f2)
	first := run(f1, s1)
	assert.Equal(t, first, run(f2, s2))
	f1.Reset()
	second := run(f1, s1)
	assert.NotEqual(t, first, second)
	_, err := s1.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:t"), Token: aws.String(first)})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Token")
	signed := sqsfake.New(sqsfake.WithSeed(7), sqsfake.WithCredentials(attackCredentials...))
	assert.NotEqual(t, first, run(signed, snsfake.New(signed)), "signed mode keys tokens with the secrets")
}

// Attack 7: an unknown SNS Action was refused before the signature was checked, recorded
// verbatim in the call record and quoted whole: 40 unsigned requests with a 1 MB Action kept
// +150 MB in signed mode. The door authenticates first, and records and quotes an unknown
// Action bounded.
func TestAnUnknownActionIsRefusedAfterAuthenticationAndKeptBounded(t *testing.T) {
	f := sqsfake.New(sqsfake.WithCredentials(attackCredentials...))
	h := snsfake.New(f).Handler(f.Handler())
	long := strings.Repeat("A", 1<<20)
	w := post(t, h, "/", "Version=2010-03-31&Action="+long, "", "", "")
	code, msg := errorOf(w.Body.String())
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Equal(t, "AccessDenied", code, msg)
	kept := memtest.Retained(func() {
		for range 40 {
			post(t, h, "/", "Version=2010-03-31&Action="+long, "", "", "")
		}
	}, f)
	assert.Less(t, kept, int64(2<<20), "40 unsigned requests naming a 1 MB Action")

	w = post(t, h, "/", "Version=2010-03-31&Action="+long, bobKey, bobSecret, "sns")
	code, msg = errorOf(w.Body.String())
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, "InvalidAction", code)
	assert.Less(t, len(msg), 4<<10, "the answer quotes the Action cut short")
	assert.True(t, strings.HasPrefix(msg, "The action AAAA"), msg)
	calls := f.Calls()
	last := calls[len(calls)-1]
	assert.Less(t, len(last.Operation), 300, "the record names the Action cut short")
	kept = memtest.Retained(func() {
		for range 40 {
			post(t, h, "/", "Version=2010-03-31&Action="+long, bobKey, bobSecret, "sns")
		}
	}, f)
	assert.Less(t, kept, int64(2<<20), "40 signed requests naming a 1 MB Action")
}

// Attack 4: every publication was kept whole until Reset: 200 publishes of 250 KB to a
// topic without subscribers kept +80 MB. The record is bounded (WithRecordBytes).
func TestThePublicationRecordIsBounded(t *testing.T) {
	f := sqsfake.New()
	s := snsfake.New(f, snsfake.WithRecordBytes(4<<20))
	h := s.Handler(f.Handler())
	w := post(t, h, "/", "Action=CreateTopic&Version=2010-03-31&Name=t", "", "", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	form := "Action=Publish&Version=2010-03-31&TopicArn=" + url.QueryEscape("arn:aws:sns:us-east-1:123456789012:t") + "&Message="
	kept := memtest.Retained(func() {
		for i := range 100 {
			w := post(t, h, "/", form+strings.Repeat(string(rune('a'+i%26)), 250_000), "", "", "")
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		}
	}, s, f)
	t.Logf("100 publishes of 250 KB kept %d bytes", kept)
	assert.Less(t, kept, int64(8<<20), "100 publishes of 250 KB with a 4 MiB record")
	pubs, err := s.Published("")
	require.NoError(t, err)
	assert.Less(t, len(pubs), 20)
	assert.Equal(t, strings.Repeat("v", 250_000), pubs[len(pubs)-1].Message, "the newest publication, whole")
}

// Attack 5: 1,000 subscriptions of queues that do not exist cost 1,000 small requests; each
// 250 KB publish then kept ~350 MB in the record (the bodies of deliveries that were lost).
// A lost delivery keeps no body, and the others a bounded prefix, shared.
func TestAFanOutKeepsNoBodyForALostDeliveryAndAPrefixForTheOthers(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	h := s.Handler(f.Handler())
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	for i := range 1000 {
		_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"),
			Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:nothing-" + strconv.Itoa(i))})
		require.NoError(t, err)
	}
	form := "Action=Publish&Version=2010-03-31&TopicArn=" + url.QueryEscape(*tp.TopicArn) + "&Message="
	kept := memtest.Retained(func() {
		for i := range 2 {
			w := post(t, h, "/", form+strings.Repeat(string(rune('a'+i)), 250_000), "", "", "")
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		}
	}, s, f)
	// Most of it is the queue fake's call record of the 2,000 SendMessage calls SQS refused
	// (about 1.4 KB each, their errors); the publication record keeps about 300 bytes a
	// delivery.
	t.Logf("2 publishes of 250 KB to 1,000 lost subscriptions kept %d bytes", kept)
	assert.Less(t, kept, int64(4<<20), "2 publishes of 250 KB to 1,000 lost subscriptions")
	pubs, err := s.Published(*tp.TopicArn)
	require.NoError(t, err)
	require.Len(t, pubs, 2)
	for _, d := range pubs[1].Deliveries {
		require.Equal(t, snsfake.Lost, d.Outcome)
		require.Empty(t, d.Body)
	}

	// Delivered: the bodies' first RecordedBodyBytes, one copy for them all.
	q := "arn:aws:sqs:us-east-1:123456789012:real"
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("real"), Attributes: map[string]string{"Policy": snsfake.QueuePolicy(q, *tp.TopicArn)}})
	require.NoError(t, err)
	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(q)})
	require.NoError(t, err)
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String(strings.Repeat("z", 250_000))})
	require.NoError(t, err)
	p, err := s.Publication(*out.MessageId)
	require.NoError(t, err)
	d := p.Deliveries[len(p.Deliveries)-1]
	assert.Equal(t, snsfake.Delivered, d.Outcome)
	assert.Len(t, d.Body, snsfake.RecordedBodyBytes)
	assert.Greater(t, d.BodySize, 250_000)
	got := receiveAllAs(t, ctx, f, "123456789012", "real")
	require.Len(t, got, 1)
	assert.Equal(t, d.BodySize, len(*got[0].Body))
	assert.True(t, strings.HasPrefix(*got[0].Body, d.Body), "the record keeps the body's beginning")
}

// Attack 6: a wildcard filter cost pattern × value under the SNS fake's lock: a
// 60,000-character pattern against a 120 KB value took 4–7 s a publish. The matcher is
// linear (internal/eventpattern: TestWildcardCostIsLinear counts its steps; BenchmarkWildcard).
func TestAWildcardFilterOfALongPatternAgainstALongValue(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	h := s.Handler(s.SQS().Handler())
	policy := `{"k":[{"wildcard":"*` + strings.Repeat("a", 60_000) + `b*"}]}`
	_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue),
		Attributes: map[string]string{"FilterPolicy": policy, "RawMessageDelivery": "true"}})
	require.NoError(t, err)
	for _, value := range []string{strings.Repeat("a", 120_000), strings.Repeat("a", 60_000) + "b"} {
		w := post(t, h, "/", "Action=Publish&Version=2010-03-31&TopicArn="+url.QueryEscape(topic)+"&Message=m"+
			"&MessageAttributes.entry.1.Name=k&MessageAttributes.entry.1.Value.DataType=String&MessageAttributes.entry.1.Value.StringValue="+value, "", "", "")
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	}
	pubs, err := s.Published(topic)
	require.NoError(t, err)
	require.Len(t, pubs, 2)
	assert.Equal(t, snsfake.Filtered, pubs[0].Deliveries[0].Outcome)
	assert.Equal(t, snsfake.Delivered, pubs[1].Deliveries[0].Outcome)
}

// publishBatchForm is a PublishBatch form of n entries, each with a message attribute.
func publishBatchForm(topic string, n int) string {
	var b strings.Builder
	b.WriteString("Action=PublishBatch&Version=2010-03-31&TopicArn=" + url.QueryEscape(topic))
	for i := 1; i <= n; i++ {
		p := "&PublishBatchRequestEntries.member." + strconv.Itoa(i)
		b.WriteString(p + ".Id=e" + strconv.Itoa(i) + p + ".Message=m" + p + ".MessageAttributes.entry.1.Name=a" +
			p + ".MessageAttributes.entry.1.Value.DataType=String" + p + ".MessageAttributes.entry.1.Value.StringValue=v")
	}
	return b.String()
}

// Attack 8: the decoder rescanned every parameter for every list and map: a 9,997-entry
// PublishBatch form took 0.8–3.5 s. It is linear (BenchmarkDecodePublishBatch), and it stops
// when the client goes away.
func TestTheDecoderStopsWhenTheClientGoesAway(t *testing.T) {
	s, topic, _ := setup(t, "t", nil, "q")
	h := s.Handler(s.SQS().Handler())
	form := publishBatchForm(topic, 9_997)
	w := post(t, h, "/", form, "", "", "")
	code, _ := errorOf(w.Body.String())
	assert.Equal(t, "TooManyEntriesInBatchRequest", code)
	costWith := func(ctx context.Context) uint64 {
		return memtest.BytesPerRun(1, func() {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/", strings.NewReader(form))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			h.ServeHTTP(httptest.NewRecorder(), r)
		})
	}
	decoded := costWith(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := costWith(ctx)
	t.Logf("decoded: %d bytes; the client gone: %d", decoded, gone)
	assert.Less(t, gone, decoded*2/3, "the decoder stopped when the client went away")
}

// The strings the wire decodes are the input's own: a topic created by a form with a large
// parameter beside its name does not keep the form.
func TestWhatTheFakeKeepsOfARequestIsItsOwn(t *testing.T) {
	f := sqsfake.New()
	s := snsfake.New(f)
	h := s.Handler(f.Handler())
	junk := strings.Repeat("j", 4<<20)
	kept := memtest.Retained(func() {
		for i := range 10 {
			w := post(t, h, "/", "Action=CreateTopic&Version=2010-03-31&Name=t"+strconv.Itoa(i)+"&Junk="+junk, "", "", "")
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		}
	}, s, f)
	t.Logf("10 topics made by 4 MB forms kept %d bytes", kept)
	assert.Less(t, kept, int64(1<<20))
}

// Attack 5's other half: a long fan-out held the SNS fake's one lock for its whole duration,
// and other accounts' calls waited. A delivery here waits (an injected Latency on its
// SendMessage, until the clock moves) while another account creates a topic and publishes,
// and the publishing topic's own attributes are read: none of them waits for it.
func TestAFanOutHoldsUpNoOtherCall(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "slow", nil, "q")
	f := s.SQS()
	_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	f.InjectFault(sqsfake.Fault{Operation: "SendMessage", Latency: time.Minute, Times: 1})
	published := make(chan error, 1)
	go func() {
		_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("slow")})
		published <- err
	}()
	require.NoError(t, f.WaitForPollers(ctx, 1), "the delivery waits on the clock")

	other := make(chan error, 1)
	go func() {
		as := snsfake.ActAs(sqsfake.Identity{AccountID: "210987654321"})
		tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("other")}, as)
		if err == nil {
			_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("fast")}, as)
		}
		if err == nil {
			_, err = s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topic)})
		}
		other <- err
	}()
	hang := time.NewTimer(time.Minute) // a guard against a hang, not a measure
	defer hang.Stop()
	select {
	case err := <-other:
		require.NoError(t, err)
	case <-hang.C:
		t.Fatal("the other account's calls waited for the fan-out")
	}
	select {
	case <-published:
		t.Fatal("the publish did not wait for its delivery")
	default:
	}
	f.Advance(time.Minute)
	require.NoError(t, <-published)
	got := receiveAll(t, f, "q")
	require.Len(t, got, 1)
}

// The quotas of subscriptions and filter policies AWS documents: 100 subscriptions a FIFO
// topic; 200 filter policies a topic and 10,000 an account, attached by Subscribe or
// SetSubscriptionAttributes (a subscription without one is still made).
func TestSubscriptionAndFilterPolicyQuotas(t *testing.T) {
	ctx := context.Background()
	s := snsfake.New(sqsfake.New())
	fifo, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("f.fifo"), Attributes: map[string]string{"FifoTopic": "true"}})
	require.NoError(t, err)
	subscribe := func(topic *string, i int, attrs map[string]string) error {
		_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic, Protocol: aws.String("sqs"),
			Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:q" + strconv.Itoa(i) + ".fifo"), Attributes: attrs})
		return err
	}
	for i := range 100 {
		require.NoError(t, subscribe(fifo.TopicArn, i, nil))
	}
	requireSNSError(t, subscribe(fifo.TopicArn, 100, nil), "SubscriptionLimitExceeded", "Subscription limit exceeded")
	require.NoError(t, subscribe(fifo.TopicArn, 0, nil), "an existing subscription is answered again")

	policy := map[string]string{"FilterPolicy": `{"k":["v"]}`}
	var topics []*string
	for i := range 51 {
		tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t" + strconv.Itoa(i))})
		require.NoError(t, err)
		topics = append(topics, tp.TopicArn)
	}
	sub := func(topic *string, i int, attrs map[string]string) (*sns.SubscribeOutput, error) {
		return s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic, Protocol: aws.String("sqs"),
			Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:q" + strconv.Itoa(i)), Attributes: attrs})
	}
	for i := range 200 {
		_, err := sub(topics[0], i, policy)
		require.NoError(t, err)
	}
	_, err = sub(topics[0], 200, policy)
	requireSNSError(t, err, "FilterPolicyLimitExceeded", "Filter policy limit exceeded")
	plain, err := sub(topics[0], 200, nil)
	require.NoError(t, err, "a subscription without a filter policy is made")
	_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: plain.SubscriptionArn,
		AttributeName: aws.String("FilterPolicy"), AttributeValue: aws.String(`{"k":["v"]}`)})
	requireSNSError(t, err, "FilterPolicyLimitExceeded", "Filter policy limit exceeded")
	info, _ := s.Topic(*topics[0])
	_, err = s.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String(info.Subscriptions[0].Arn)})
	require.NoError(t, err)
	_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: plain.SubscriptionArn,
		AttributeName: aws.String("FilterPolicy"), AttributeValue: aws.String(`{"k":["v"]}`)})
	require.NoError(t, err, "an unsubscribed policy frees its place")

	for k := 1; k < 50; k++ {
		for i := range 200 {
			_, err := sub(topics[k], i, policy)
			require.NoError(t, err)
		}
	}
	_, err = sub(topics[50], 0, policy)
	requireSNSError(t, err, "FilterPolicyLimitExceeded", "Filter policy limit exceeded")
	other := snsfake.ActAs(sqsfake.Identity{AccountID: "210987654321"})
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t50")}, other)
	require.NoError(t, err)
	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"),
		Endpoint: aws.String("arn:aws:sqs:us-east-1:210987654321:q"), Attributes: policy}, other)
	require.NoError(t, err, "another account has its own 10,000")
}

// Item 9: a 1.5 MB DisplayName, Policy, DeliveryPolicy or KmsMasterKeyId was accepted. Topic
// attributes have AWS's bounds (a topic Policy 30 KiB), subscription attributes likewise.
func TestTopicAttributesAreBounded(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	big := strings.Repeat("x", 1_500_000)
	bigJSON := `{"http":{"defaultHealthyRetryPolicy":{"numRetries":3}},"pad":"` + big + `"}`
	bigPolicy := `{"Statement":[{"Sid":"` + big + `","Effect":"Allow","Principal":"*","Action":"SNS:Publish","Resource":"` + topic + `"}]}`
	for name, v := range map[string]string{"DisplayName": big, "Policy": bigPolicy, "DeliveryPolicy": bigJSON, "KmsMasterKeyId": big,
		"HTTPSuccessFeedbackRoleArn": "arn:aws:iam::123456789012:role/" + big} {
		_, err := s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(topic), AttributeName: aws.String(name), AttributeValue: aws.String(v)})
		var api interface{ ErrorMessage() string }
		require.ErrorAs(t, err, &api, name)
		assert.True(t, strings.HasPrefix(api.ErrorMessage(), "Invalid parameter: "+name+": Invalid value [xxx") ||
			strings.HasPrefix(api.ErrorMessage(), "Invalid parameter: "+name+": Invalid value [{") ||
			strings.HasPrefix(api.ErrorMessage(), "Invalid parameter: "+name+": Invalid value [arn"), "%s: %.80s", name, api.ErrorMessage())
		assert.Less(t, len(api.ErrorMessage()), 4<<10, "the refusal quotes the value cut short")
		_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("other"), Attributes: map[string]string{name: v}})
		require.Error(t, err, name)
	}
	display := strings.Repeat("é", 100)
	_, err := s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(topic), AttributeName: aws.String("DisplayName"), AttributeValue: aws.String(display)})
	require.NoError(t, err, "100 characters")
	atLimit := `{"Statement":[{"Sid":"` + strings.Repeat("s", 30<<10) + `","Effect":"Allow","Principal":"*","Action":"SNS:Publish","Resource":"` + topic + `"}]}`
	atLimit = strings.Replace(atLimit, strings.Repeat("s", len(atLimit)-30<<10), "", 1)
	require.Len(t, atLimit, 30<<10)
	_, err = s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(topic), AttributeName: aws.String("Policy"), AttributeValue: aws.String(atLimit)})
	require.NoError(t, err, "a 30 KiB policy")

	sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn, AttributeName: aws.String("RedrivePolicy"),
		AttributeValue: aws.String(`{"deadLetterTargetArn":"` + queue + `","pad":"` + big + `"}`)})
	require.Error(t, err)
	kept := memtest.Retained(func() {
		for range 20 {
			_, _ = s.SetTopicAttributes(ctx, &sns.SetTopicAttributesInput{TopicArn: aws.String(topic), AttributeName: aws.String("DisplayName"), AttributeValue: aws.String(big + "y")})
		}
	}, s)
	assert.Less(t, kept, int64(1<<20), "20 refused 1.5 MB attributes")
}
