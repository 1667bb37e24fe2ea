package main

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserConsoleShowsPublicationsAndCopiesLinks is issue 32's console: a topic's view shows
// each publication and what became of each delivery — delivered (a link to the message's
// timeline), lost to a queue's policy (SQS's words) — and the page's links reach each view,
// with a button that copies the link to the view on screen.
func TestBrowserConsoleShowsPublicationsAndCopiesLinks(t *testing.T) {
	chromium, err := chromiumPath()
	if errors.Is(err, errNoBrowser) {
		t.Skip("set SQSFAKE_BROWSER=1 (or a path to chromium) to run the browser tests")
	}
	require.NoError(t, err)
	s := start(t, "-clock", "virtual", "-queues", "billing,audit")
	ctx := context.Background()
	topic := "arn:aws:sns:us-east-1:123456789012:orders"
	billing := "arn:aws:sqs:us-east-1:123456789012:billing"
	_, err = s.client().SetQueueAttributes(ctx, setPolicyInput(s.endpoint+"/123456789012/billing",
		`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"SQS:SendMessage","Resource":"`+billing+
			`","Condition":{"ArnLike":{"aws:SourceArn":"`+topic+`"}}}]}`))
	require.NoError(t, err)
	topics := sns.New(sns.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.endpoint), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}, nil
		})})
	_, err = topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	require.NoError(t, err)
	for _, q := range []string{"billing", "audit"} {
		_, err = topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
			Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:" + q), Attributes: map[string]string{"RawMessageDelivery": "true"}})
		require.NoError(t, err)
	}
	var ids []string
	for _, m := range []string{"order 1", "<b>order 2</b>"} {
		out, err := topics.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(m)})
		require.NoError(t, err)
		ids = append(ids, *out.MessageId)
	}
	got, err := s.client().ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(s.endpoint + "/123456789012/billing"), MaxNumberOfMessages: 10})
	require.NoError(t, err)
	require.Len(t, got.Messages, 2)
	sqsID := *got.Messages[1].MessageId // order 2's

	b := startBrowser(t, chromium, 1360, 900)
	b.navigate(t, s.endpoint+"/_sqsfake/console/")
	b.waitFor(t, `document.body.dataset.loaded >= 1`)
	assert.Contains(t, b.text(t, "#topics"), "orders std · 2 published")
	assert.Equal(t, "1–1 of 1", b.text(t, "#topics-range"))

	// The topic's view: each publication, newest first, and what became of each delivery.
	b.eval(t, `document.querySelector('#topics li[data-arn$=":orders"]').click()`)
	b.waitFor(t, `!document.querySelector('#topic-view').hidden && document.querySelectorAll('#publications li.pub').length === 2`)
	assert.Equal(t, "#topic="+url.QueryEscape(topic), b.eval(t, `location.hash`), "the view's link")
	assert.True(t, b.eval(t, `document.querySelector('#queue-view').hidden && document.querySelector('#empty-view').hidden`).(bool))
	assert.Equal(t, "(1–2 of 2, newest first)", b.text(t, "#p-range"))
	assert.Contains(t, b.text(t, "#t-subs"), "sqs → billing (raw)")
	newest := `#publications li.pub[data-id="` + ids[1] + `"]`
	assert.Contains(t, b.text(t, newest+" .pub-message"), "<b>order 2</b>", "the message as text")
	assert.Equal(t, float64(0), b.eval(t, `document.querySelectorAll('#publications .pub-message *').length`), "no markup from a message")
	assert.Equal(t, "delivered → billing (raw) as "+sqsID, b.text(t, newest+` li[data-outcome="delivered"]`))
	lost := b.text(t, newest+` li[data-outcome="lost"]`)
	assert.True(t, strings.HasPrefix(lost, "lost → audit (raw)AccessDenied: User: sns.amazonaws.com is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:123456789012:audit"), lost)
	b.screenshot(t, filepath.Join(browserOut(t), "5-topic-publications.png"), 1)

	// Copy link: the address of the view on screen, shown when the clipboard refuses.
	b.eval(t, `document.querySelector('#copy-link').click()`)
	notice := b.waitFor(t, `document.querySelector('#notice') && document.querySelector('#notice').textContent`).(string)
	assert.Contains(t, notice, s.endpoint+"/_sqsfake/console/#topic="+url.QueryEscape(topic))

	// A delivery's link opens the message's timeline in its queue; its link is the page's.
	b.eval(t, `document.querySelector('`+newest+` li[data-outcome="delivered"] a.qlink:last-of-type').click()`)
	b.waitFor(t, `document.querySelector('#timeline svg') && document.querySelector('#msg-id').textContent === '`+sqsID+`'`)
	assert.Equal(t, "billing", b.text(t, "#q-name"))
	assert.True(t, b.eval(t, `document.querySelector('#topic-view').hidden`).(bool))
	hash := b.eval(t, `location.hash`).(string)
	assert.Equal(t, "#queue="+url.QueryEscape(billing)+"&message="+sqsID, hash)

	// Each link opens its view in a new page.
	for _, tc := range []struct{ hash, ready string }{
		{"#topic=" + url.QueryEscape(topic), `document.querySelectorAll('#publications li.pub').length === 2`},
		{hash, `document.querySelector('#msg-id') && document.querySelector('#msg-id').textContent === '` + sqsID + `' && document.querySelector('#timeline svg')`},
		{"#queue=" + billing, `document.querySelector('#q-name').textContent === 'billing' && document.querySelector('#message-view').hidden`},
		{"#message=" + sqsID, `document.querySelector('#msg-id') && document.querySelector('#msg-id').textContent === '` + sqsID + `' && document.querySelector('#timeline svg')`},
	} {
		b2 := startBrowser(t, chromium, 1360, 900)
		b2.navigate(t, s.endpoint+"/_sqsfake/console/"+tc.hash)
		b2.waitFor(t, `document.body.dataset.loaded >= 1 && `+tc.ready)
		assert.Empty(t, b2.pageErrors(t))
	}
	assert.Empty(t, b.pageErrors(t), "no script error, nothing the page's policy refused")
}
