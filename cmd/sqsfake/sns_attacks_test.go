package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/internal/memtest"
	"github.com/sqsfake/sqsfake/snsfake"
)

// The attacks of issue 29 on the server's SNS side (snsfake/attacks_test.go drives them
// through Handler()).

// multibyteText is n bytes of UTF-8 text of two- and three-byte characters, which a form
// encodes as six and nine bytes.
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

// postForm posts a form to the server, signed as the owner for service when sign is set.
func postForm(t *testing.T, endpoint, form string, sign bool, service string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader(form))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	if sign {
		signedFor(t, r, form, service)
	}
	return do(t, r)
}

// Attack 1: a 1 MiB multibyte message sent with the query protocol (a 3 MiB form) is stored
// whole, with its MD5, lenient and signed.
func TestAttackAQueryMessageOfOneMiBIsStoredWholeThroughTheServer(t *testing.T) {
	body := multibyteText(1 << 20)
	sum := md5.Sum([]byte(body))
	for _, sign := range []bool{false, true} {
		t.Run(map[bool]string{false: "lenient", true: "signed"}[sign], func(t *testing.T) {
			var s *testServer
			acct := "123456789012"
			client := func() *sqs.Client { return s.client() }
			if sign {
				s, _, _ = signedServer(t)
				acct = ownerKey
				client = func() *sqs.Client { return s.clientAs(ownerKey, ownerSecret) }
			} else {
				s = start(t, "-clock", "virtual")
			}
			code, answer := postForm(t, s.endpoint, "Action=CreateQueue&Version=2012-11-05&QueueName=big", sign, "sqs")
			require.Equal(t, http.StatusOK, code, answer)
			queueURL := s.endpoint + "/" + acct + "/big"
			form := "Action=SendMessage&Version=2012-11-05&QueueUrl=" + url.QueryEscape(queueURL) + "&MessageBody=" + url.QueryEscape(body)
			require.Greater(t, len(form), 3<<20)
			code, answer = postForm(t, s.endpoint, form, sign, "sqs")
			require.Equal(t, http.StatusOK, code, answer)
			assert.Contains(t, answer, "<MD5OfMessageBody>"+hex.EncodeToString(sum[:])+"</MD5OfMessageBody>")
			got, err := client().ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(queueURL)})
			require.NoError(t, err)
			require.Len(t, got.Messages, 1)
			assert.True(t, *got.Messages[0].Body == body, "the body read back is the one sent (%d bytes of %d)", len(*got.Messages[0].Body), len(body))
			assert.Equal(t, hex.EncodeToString(sum[:]), *got.Messages[0].MD5OfBody)
		})
	}
}

// signedFor signs r with the owner's key for service.
func signedFor(t *testing.T, r *http.Request, body, service string) {
	t.Helper()
	signAs(t, r, body, service, ownerKey, ownerSecret)
}

// signAs signs r with key and secret for service in us-east-1, now.
func signAs(t *testing.T, r *http.Request, body, service, key, secret string) {
	t.Helper()
	require.NoError(t, v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
		r, sha256Hex(body), service, "us-east-1", time.Now()))
}

// snsAs posts an SNS form signed as key.
func snsAs(t *testing.T, endpoint, key, secret, form string) (int, string) {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, endpoint+"/", strings.NewReader("Version=2010-03-31&"+form))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	signAs(t, r, "Version=2010-03-31&"+form, "sns", key, secret)
	return do(t, r)
}

// Attack 2: a stranger's endpoint ARN that names his own account and the owner's queue in
// its name (…:<stranger>:<owner>/mine) is refused; nothing he publishes reaches the owner's
// queue, whose policy admits SNS from any topic.
func TestAttackAnEndpointARNNamingAnotherAccountsQueueFailsThroughTheServer(t *testing.T) {
	ctx := context.Background()
	s, mine, _ := signedServer(t)
	owner := s.clientAs(ownerKey, ownerSecret)
	mineArn := "arn:aws:sqs:us-east-1:" + ownerKey + ":mine"
	_, err := owner.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(mine), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + mineArn + `"}]}`}})
	require.NoError(t, err)
	code, body := snsAs(t, s.endpoint, strangerKey, strangerSecret, "Action=CreateTopic&Name=strangers")
	require.Equal(t, http.StatusOK, code, body)
	topic := url.QueryEscape("arn:aws:sns:us-east-1:" + strangerKey + ":strangers")
	for _, endpoint := range []string{
		"arn:aws:sqs:us-east-1:" + strangerKey + ":" + ownerKey + "/mine",
		"arn:aws:sqs:us-east-1:" + strangerKey + ":x/../" + ownerKey + "/mine",
	} {
		code, body := snsAs(t, s.endpoint, strangerKey, strangerSecret, "Action=Subscribe&TopicArn="+topic+"&Protocol=sqs&Endpoint="+url.QueryEscape(endpoint))
		assert.Equal(t, http.StatusBadRequest, code, body)
		assert.Contains(t, body, "<Message>Invalid parameter: SQS endpoint ARN</Message>")
	}
	code, body = snsAs(t, s.endpoint, strangerKey, strangerSecret, "Action=Publish&TopicArn="+topic+"&Message=strangers")
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, map[string]string{"mine's message": "visible"}, s.messagesOf(t, "mine"))
}

// Attack 3: a stranger who knows the server's seed replays its calls on a fake of his own,
// reads the token of his pending subscription of the owner's queue, and GETs the
// SubscribeURL with it: in signed mode the token is keyed by the server's secrets, and the
// subscription stays pending.
func TestAttackAConfirmationTokenForgedWithTheSeedFailsThroughTheServer(t *testing.T) {
	ctx := context.Background()
	s, mine, _ := signedServer(t, "-seed", "42")
	owner := s.clientAs(ownerKey, ownerSecret)
	mineArn := "arn:aws:sqs:us-east-1:" + ownerKey + ":mine"
	_, err := owner.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(mine), Attributes: map[string]string{
		"Policy": `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + mineArn + `"}]}`}})
	require.NoError(t, err)
	topic := "arn:aws:sns:us-east-1:" + strangerKey + ":strangers"
	calls := []string{"Action=CreateTopic&Name=strangers", "Action=Subscribe&TopicArn=" + url.QueryEscape(topic) + "&Protocol=sqs&Endpoint=" + url.QueryEscape(mineArn)}
	for _, form := range calls {
		code, body := snsAs(t, s.endpoint, strangerKey, strangerSecret, form)
		require.Equal(t, http.StatusOK, code, body)
	}
	replayFake := sqsfake.New(sqsfake.WithSeed(42), sqsfake.WithEndpoint(s.endpoint))
	replay := snsfake.New(replayFake)
	as := snsfake.ActAs(sqsfake.Identity{AccountID: strangerKey})
	_, err = replay.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("strangers")}, as)
	require.NoError(t, err)
	_, err = replay.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(mineArn)}, as)
	require.NoError(t, err)
	forged := replay.Topics()[0].Subscriptions[0].Token
	require.NotEmpty(t, forged)
	resp, err := http.Get(s.endpoint + "/?Action=ConfirmSubscription&TopicArn=" + url.QueryEscape(topic) + "&Token=" + forged)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(b))
	assert.Contains(t, string(b), "<Message>Invalid parameter: Token</Message>")
	code, body := snsAs(t, s.endpoint, strangerKey, strangerSecret, "Action=Publish&TopicArn="+url.QueryEscape(topic)+"&Message=strangers")
	require.Equal(t, http.StatusOK, code, body)
	got := s.messagesOf(t, "mine")
	assert.Len(t, got, 2, "the owner's message and the SubscriptionConfirmation: %v", got)
	for body := range got {
		assert.NotContains(t, body, `"Type" : "Notification"`)
	}
}

// serveSNS answers one SNS form on s, unsigned (lenient) or signed as key.
func serveSNS(t *testing.T, s *server, form, key, secret string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:9324/", strings.NewReader(form))
	r.Host = "127.0.0.1:9324"
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if key != "" {
		signAs(t, r, form, "sns", key, secret)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// Attack 4: 200 publishes of 250 KB to a topic without subscribers kept +80 MB, and
// GET /_sqsfake/topics answered 50 MB. The server's record keeps about 32 MiB.
func TestAttackThePublicationRecordIsBoundedThroughTheServer(t *testing.T) {
	s := newTestServer(t)
	w := serveSNS(t, s, "Action=CreateTopic&Version=2010-03-31&Name=t", "", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	form := "Action=Publish&Version=2010-03-31&TopicArn=" + url.QueryEscape("arn:aws:sns:us-east-1:123456789012:t") + "&Message="
	kept := memtest.Retained(func() {
		for i := range 200 {
			w := serveSNS(t, s, form+strings.Repeat(string(rune('a'+i%26)), 250_000), "", "")
			require.Equal(t, http.StatusOK, w.Code)
		}
	}, s)
	t.Logf("200 publishes of 250 KB kept %d bytes", kept)
	assert.Less(t, kept, int64(40<<20))
	w = serve(s, http.MethodGet, "/_sqsfake/topics", "127.0.0.1:9324", "X-Sqsfake-Control", "1")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Less(t, w.Body.Len(), 40<<20, "GET /_sqsfake/topics")
}

// Attack 5: 1,000 subscriptions of queues that do not exist, then 250 KB publishes: each
// kept ~350 MB. A lost delivery keeps no body.
func TestAttackAFanOutToLostSubscriptionsKeepsNoBodiesThroughTheServer(t *testing.T) {
	s := newTestServer(t)
	w := serveSNS(t, s, "Action=CreateTopic&Version=2010-03-31&Name=t", "", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	topic := url.QueryEscape("arn:aws:sns:us-east-1:123456789012:t")
	for i := range 1000 {
		w := serveSNS(t, s, "Action=Subscribe&Version=2010-03-31&TopicArn="+topic+"&Protocol=sqs&Endpoint="+
			url.QueryEscape("arn:aws:sqs:us-east-1:123456789012:nothing-"+strconv.Itoa(i)), "", "")
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	}
	kept := memtest.Retained(func() {
		for i := range 2 {
			w := serveSNS(t, s, "Action=Publish&Version=2010-03-31&TopicArn="+topic+"&Message="+strings.Repeat(string(rune('a'+i)), 250_000), "", "")
			require.Equal(t, http.StatusOK, w.Code)
		}
	}, s)
	t.Logf("2 publishes of 250 KB to 1,000 lost subscriptions kept %d bytes", kept)
	assert.Less(t, kept, int64(8<<20))
}

// Attack 7: unsigned requests naming a 1 MB Action, in signed mode, kept +150 MB (40 of
// them): refused before the Action is read, and recorded under a bounded name.
func TestAttackAnUnknownActionBeforeAuthenticationIsKeptBoundedThroughTheServer(t *testing.T) {
	s := newTestServer(t, "-credentials", credentialsFile(t))
	long := strings.Repeat("A", 1<<20)
	w := serveSNS(t, s, "Version=2010-03-31&Action="+long, "", "")
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.NotContains(t, w.Body.String(), "InvalidAction")
	kept := memtest.Retained(func() {
		for range 40 {
			serveSNS(t, s, "Version=2010-03-31&Action="+long, "", "")
		}
	}, s)
	t.Logf("40 unsigned requests naming a 1 MB Action kept %d bytes", kept)
	assert.Less(t, kept, int64(2<<20))
	w = serveSNS(t, s, "Version=2010-03-31&Action="+long, ownerKey, ownerSecret)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "<Code>InvalidAction</Code>")
	assert.Less(t, w.Body.Len(), 4<<10)
}

// Attack 6: a wildcard filter of a 60,000-character pattern against a 120 KB value cost
// pattern × value under the SNS lock (4–7 s a publish); the matcher is linear.
func TestAttackALongWildcardFilterThroughTheServer(t *testing.T) {
	s := newTestServer(t)
	topic := url.QueryEscape("arn:aws:sns:us-east-1:123456789012:t")
	for _, form := range []string{
		"Action=CreateTopic&Version=2010-03-31&Name=t",
		"Action=Subscribe&Version=2010-03-31&TopicArn=" + topic + "&Protocol=sqs&Endpoint=" + url.QueryEscape("arn:aws:sqs:us-east-1:123456789012:q") +
			"&Attributes.entry.1.key=FilterPolicy&Attributes.entry.1.value=" + url.QueryEscape(`{"k":[{"wildcard":"*`+strings.Repeat("a", 60_000)+`b*"}]}`),
		"Action=Publish&Version=2010-03-31&TopicArn=" + topic + "&Message=m&MessageAttributes.entry.1.Name=k" +
			"&MessageAttributes.entry.1.Value.DataType=String&MessageAttributes.entry.1.Value.StringValue=" + strings.Repeat("a", 120_000),
	} {
		w := serveSNS(t, s, form, "", "")
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	}
	w := serve(s, http.MethodGet, "/_sqsfake/topics", "127.0.0.1:9324", "X-Sqsfake-Control", "1")
	require.Equal(t, http.StatusOK, w.Code)
	assert.True(t, strings.Contains(w.Body.String(), `"Outcome": "filtered"`), "the publication was filtered")
}

// Attack 8: a 9,997-entry PublishBatch form was decoded in quadratic time; the decoder is
// linear and stops when the client goes away.
func TestAttackAPublishBatchOfManyEntriesThroughTheServer(t *testing.T) {
	s := newTestServer(t)
	w := serveSNS(t, s, "Action=CreateTopic&Version=2010-03-31&Name=t", "", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var form strings.Builder
	form.WriteString("Action=PublishBatch&Version=2010-03-31&TopicArn=" + url.QueryEscape("arn:aws:sns:us-east-1:123456789012:t"))
	for i := 1; i <= 9_997; i++ {
		p := "&PublishBatchRequestEntries.member." + strconv.Itoa(i)
		form.WriteString(p + ".Id=e" + strconv.Itoa(i) + p + ".Message=m" + p + ".MessageAttributes.entry.1.Name=a" +
			p + ".MessageAttributes.entry.1.Value.DataType=String" + p + ".MessageAttributes.entry.1.Value.StringValue=v")
	}
	w = serveSNS(t, s, form.String(), "", "")
	assert.Contains(t, w.Body.String(), "<Code>TooManyEntriesInBatchRequest</Code>")
	costWith := func(ctx context.Context) uint64 {
		return memtest.BytesPerRun(1, func() {
			r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", strings.NewReader(form.String()))
			r.Host = "127.0.0.1:9324"
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			s.ServeHTTP(httptest.NewRecorder(), r)
		})
	}
	decoded := costWith(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := costWith(ctx)
	t.Logf("decoded: %d bytes; the client gone: %d", decoded, gone)
	assert.Less(t, gone, decoded*2/3, "the decoder stopped when the client went away")
}
