package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
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
