package main

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/sqsfake/sqsfake/snsfake"
)

// SNS's control endpoints: the topics (GET /_sqsfake/topics) and a topic's publications
// (GET /_sqsfake/publications). Paged, they are what the console reads: a page of topics as a
// list shows them, a page of publications with what became of each delivery; each answer
// holds only what it shows.

// The pages' sizes: by default and at most; how much of a message a publication shows.
const (
	topicPage          = 200
	topicPageMax       = 1000
	publicationPage    = 20
	publicationPageMax = 100
	shownMessageBytes  = 200
)

// pagedTopic is a topic as the console lists it.
type pagedTopic struct {
	Arn               string     `json:"arn"`
	Name              string     `json:"name"`
	Account           string     `json:"account"`
	Region            string     `json:"region"`
	FIFO              bool       `json:"fifo"`
	Subscriptions     []pagedSub `json:"subscriptions"`
	SubscriptionCount int        `json:"subscriptionCount"`
	Published         int        `json:"published"`
}

type pagedSub struct {
	Arn          string `json:"arn"`
	Protocol     string `json:"protocol"`
	Endpoint     string `json:"endpoint"`
	Pending      bool   `json:"pending,omitempty"`
	Raw          bool   `json:"raw,omitempty"`
	FilterPolicy string `json:"filterPolicy,omitempty"`
}

// shownPublication is a publication as the console shows it: its message cut, and what
// became of it for each subscription. A delivery is an object so that more can be said of
// it (an HTTP/S delivery's attempts) without changing what is there.
type shownPublication struct {
	MessageID        string          `json:"messageId"`
	SequenceNumber   string          `json:"sequenceNumber,omitempty"`
	Time             time.Time       `json:"time"`
	Subject          string          `json:"subject,omitempty"`
	Message          string          `json:"message"`
	MessageBytes     int             `json:"messageBytes"`
	MessageTruncated bool            `json:"messageTruncated,omitempty"`
	GroupID          string          `json:"groupId,omitempty"`
	Duplicate        bool            `json:"duplicate,omitempty"`
	Confirmation     bool            `json:"confirmation,omitempty"`
	Deliveries       []shownDelivery `json:"deliveries"`
}

type shownDelivery struct {
	SubscriptionArn string `json:"subscriptionArn"`
	Endpoint        string `json:"endpoint"`
	Raw             bool   `json:"raw,omitempty"`
	FilterPolicy    string `json:"filterPolicy,omitempty"`
	Outcome         string `json:"outcome"`
	Reason          string `json:"reason,omitempty"`
	SQSMessageID    string `json:"sqsMessageId,omitempty"`
	DeadLetterQueue string `json:"deadLetterQueue,omitempty"`
	// An HTTP/S delivery's POSTs, and its next one while it is retrying.
	Attempts    []shownAttempt `json:"attempts,omitempty"`
	NextAttempt *time.Time     `json:"nextAttempt,omitempty"`
}

// shownAttempt is one POST of an HTTP/S delivery, as the console draws it on the clock.
type shownAttempt struct {
	N      int       `json:"n"`
	Time   time.Time `json:"time"`
	Phase  string    `json:"phase"`
	Status int       `json:"status,omitempty"`
	Error  string    `json:"error,omitempty"`
	Result string    `json:"result"`
}

// shownAttempts is a delivery's attempts for the console; nil for a queue's.
func shownAttempts(as []snsfake.Attempt) []shownAttempt {
	if len(as) == 0 {
		return nil
	}
	out := make([]shownAttempt, 0, len(as))
	for _, a := range as {
		out = append(out, shownAttempt{N: a.N, Time: a.Time, Phase: a.Phase.String(), Status: a.Status, Error: a.Error, Result: a.Result.String()})
	}
	return out
}

func pagedSubs(subs []snsfake.SubscriptionSummary) []pagedSub {
	out := make([]pagedSub, 0, len(subs))
	for _, s := range subs {
		out = append(out, pagedSub{Arn: s.Arn, Protocol: s.Protocol, Endpoint: s.Endpoint, Pending: s.Pending, Raw: s.Raw,
			FilterPolicy: s.FilterPolicy})
	}
	return out
}

// pageParam reads the integer parameter k of q, def when absent; on a value that is not an
// integer from 0 to most it answers 400 and returns false.
func pageParam(w http.ResponseWriter, q url.Values, k string, def, most int) (int, bool) {
	if !q.Has(k) {
		return def, true
	}
	n, err := strconv.Atoi(q.Get(k))
	if err != nil || n < 0 || n > most {
		writeJSON(w, http.StatusBadRequest, errorBody("want ?"+k+"=<an integer from 0 to "+strconv.Itoa(most)+">"))
		return 0, false
	}
	return n, true
}

// topicsEndpoint answers GET /_sqsfake/topics: with ?limit= (or ?after=) one page of the
// topics in ARN order, as the console lists them; without, every topic with its attributes
// and subscriptions and, unless ?published=false, every publication the record keeps.
func topicsEndpoint(w http.ResponseWriter, r *http.Request, topics *snsfake.Fake) {
	q := r.URL.Query()
	if !q.Has("limit") && !q.Has("after") {
		answer := map[string]any{"topics": topics.Topics()}
		if q.Get("published") != "false" {
			answer["published"], _ = topics.Published("")
		}
		writeJSON(w, http.StatusOK, answer)
		return
	}
	after, ok := pageParam(w, q, "after", 0, 1<<31)
	if !ok {
		return
	}
	limit, ok := pageParam(w, q, "limit", topicPage, topicPageMax)
	if !ok {
		return
	}
	page := topics.TopicPage(after, limit)
	out := make([]pagedTopic, 0, len(page.Topics))
	for _, t := range page.Topics {
		out = append(out, pagedTopic{Arn: t.Arn, Name: t.Name, Account: t.AccountID, Region: t.Region, FIFO: t.FIFO,
			Subscriptions: pagedSubs(t.Subscriptions), SubscriptionCount: t.SubscriptionCount, Published: t.Published})
	}
	writeJSON(w, http.StatusOK, map[string]any{"topics": out, "total": page.Total, "truncated": page.Next > 0, "next": page.Next})
}

// publicationsEndpoint answers GET /_sqsfake/publications?topic=ARN: one page of the
// topic's publications, newest first (?after= skipped, ?limit= at most), each with what
// became of it for every subscription.
func publicationsEndpoint(w http.ResponseWriter, r *http.Request, topics *snsfake.Fake) {
	q := r.URL.Query()
	after, ok := pageParam(w, q, "after", 0, 1<<31)
	if !ok {
		return
	}
	limit, ok := pageParam(w, q, "limit", publicationPage, publicationPageMax)
	if !ok {
		return
	}
	topic := q.Get("topic")
	if topic == "" {
		writeJSON(w, http.StatusBadRequest, errorBody("want ?topic=<a topic's ARN>"))
		return
	}
	page, err := topics.PublicationPage(topic, after, limit)
	if errors.Is(err, snsfake.ErrNoTopic) {
		writeJSON(w, http.StatusNotFound, errorBody(err.Error()))
		return
	}
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, errorBody(err.Error()))
		return
	}
	out := make([]shownPublication, 0, len(page.Publications))
	for _, p := range page.Publications {
		sp := shownPublication{MessageID: p.MessageID, SequenceNumber: p.SequenceNumber, Time: p.Time.UTC(), Subject: p.Subject,
			MessageBytes: len(p.Message), GroupID: p.MessageGroupID, Duplicate: p.Duplicate, Confirmation: p.Confirmation,
			Deliveries: make([]shownDelivery, 0, len(p.Deliveries))}
		sp.Message, sp.MessageTruncated = cutText(p.Message, shownMessageBytes)
		for _, d := range p.Deliveries {
			sp.Deliveries = append(sp.Deliveries, shownDelivery{SubscriptionArn: d.SubscriptionArn, Endpoint: d.Endpoint, Raw: d.Raw,
				FilterPolicy: d.FilterPolicy, Outcome: d.Outcome.String(), Reason: d.Reason, SQSMessageID: d.SQSMessageID,
				DeadLetterQueue: d.DeadLetterQueue, Attempts: shownAttempts(d.Attempts)})
			if !d.NextAttempt.IsZero() {
				next := d.NextAttempt
				sp.Deliveries[len(sp.Deliveries)-1].NextAttempt = &next
			}
		}
		out = append(out, sp)
	}
	answer := map[string]any{"topic": topic, "publications": out, "total": page.Total, "truncated": page.Next > 0, "next": page.Next}
	if t := page.Topic; t != nil { // nil: a topic that was deleted
		answer["subscriptions"], answer["subscriptionCount"], answer["fifo"] = pagedSubs(t.Subscriptions), t.SubscriptionCount, t.FIFO
	}
	writeJSON(w, http.StatusOK, answer)
}

// cutText cuts s to at most n bytes on a character boundary, and says whether it did.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
