package snsfake

import (
	"slices"

	"github.com/sqsfake/sqsfake/companion"
)

// Pages of the topics and of a topic's publications, for a page that lists them (the
// console, through cmd/sqsfake): each reads only what it shows, however many topics and
// publications there are.

// maxSummarySubs bounds the subscriptions a TopicSummary lists.
const maxSummarySubs = 50

// TopicPage is one page of the topics of every account and region, in ARN order.
type TopicPage struct {
	Topics []TopicSummary
	// Total is how many topics there are; Next is the after of the next page, 0 at the end.
	Total, Next int
}

// TopicSummary is what a list shows of a topic: its name, kind and subscriptions, not its
// attributes.
type TopicSummary struct {
	Arn, Name, AccountID, Region string
	FIFO                         bool
	// Subscriptions are its first subscriptions, in the order they were made, at most 50;
	// SubscriptionCount is how many it has.
	Subscriptions     []SubscriptionSummary
	SubscriptionCount int
	// Published is how many of its publications the record keeps.
	Published int
}

// SubscriptionSummary is what a list shows of a subscription.
type SubscriptionSummary struct {
	Arn, Protocol, Endpoint string
	Pending, Raw            bool
	FilterPolicy            string
}

// TopicPage returns the topics after the first after, at most limit of them (none for a
// limit ≤ 0), in ARN order.
func (s *Fake) TopicPage(after, limit int) TopicPage {
	s.mu.Lock()
	defer s.mu.Unlock()
	arns := s.sortedTopicsLocked()
	page := TopicPage{Total: len(arns), Topics: []TopicSummary{}}
	after = max(after, 0)
	end := min(len(arns), after+max(limit, 0))
	if after >= end {
		return page
	}
	counts := map[string]int{}
	for _, arn := range arns[after:end] {
		counts[arn] = 0
	}
	for _, p := range s.rec.all() {
		if n, ok := counts[p.TopicArn]; ok && !p.Confirmation {
			counts[p.TopicArn] = n + 1
		}
	}
	for _, arn := range arns[after:end] {
		page.Topics = append(page.Topics, summaryOf(s.topics[arn], counts[arn]))
	}
	if end < len(arns) {
		page.Next = end
	}
	return page
}

// summaryOf is what a list shows of t, which has published publications in the record.
func summaryOf(t *topic, published int) TopicSummary {
	ts := TopicSummary{Arn: t.arn, Name: t.name, AccountID: t.account, Region: t.region, FIFO: t.fifo,
		SubscriptionCount: len(t.subs), Published: published}
	for _, sub := range t.subs[:min(len(t.subs), maxSummarySubs)] {
		ts.Subscriptions = append(ts.Subscriptions, SubscriptionSummary{Arn: sub.arn, Protocol: sub.protocol, Endpoint: sub.endpoint,
			Pending: sub.pending, Raw: sub.raw, FilterPolicy: sub.filter})
	}
	return ts
}

// sortedTopicsLocked returns the topics' ARNs in order, sorted again only after a topic was
// created or deleted. s.mu is held.
func (s *Fake) sortedTopicsLocked() []string {
	if s.topicOrderStale || len(s.topicOrder) != len(s.topics) {
		s.topicOrder = s.topicOrder[:0]
		for arn := range s.topics {
			s.topicOrder = append(s.topicOrder, arn)
		}
		slices.Sort(s.topicOrder)
		s.topicOrderStale = false
	}
	return s.topicOrder
}

// PublicationPage is one page of a topic's publications, newest first.
type PublicationPage struct {
	// Topic is the topic as a list shows it; nil once it was deleted (its publications stay
	// in the record).
	Topic        *TopicSummary
	Publications []Publication
	// Total is how many of the topic's publications the record keeps; Next is the after of
	// the next (older) page, 0 at the end.
	Total, Next int
}

// PublicationPage returns a topic's publications (its ARN, or its name in the fake's account
// and region) newest first, skipping the newest after of them, at most limit — the
// SubscriptionConfirmations SNS sent included — copied. A topic that does not exist, and
// that no publication in the record names, is an error that wraps ErrNoTopic.
func (s *Fake) PublicationPage(topic string, after, limit int) (PublicationPage, error) {
	companion.CatchUp(s.sq) // on a benbjohnson mock, the HTTP/S attempts its own moves made due
	s.mu.Lock()
	defer s.mu.Unlock()
	arn, err := s.publishedTopicLocked(topic)
	if err != nil {
		return PublicationPage{}, err
	}
	page := PublicationPage{Publications: []Publication{}}
	after, limit = max(after, 0), max(limit, 0)
	pubs := s.rec.all()
	for i := len(pubs) - 1; i >= 0; i-- {
		p := pubs[i]
		if p.TopicArn != arn {
			continue
		}
		if page.Total >= after && page.Total < after+limit {
			p.MessageAttributes = unpackAttrs(p.attrs)
			p.Deliveries = cloneDeliveries(p.Deliveries) // HTTP/S ones as they stand
			page.Publications = append(page.Publications, p)
		}
		page.Total++
	}
	if after+limit < page.Total {
		page.Next = after + limit
	}
	if t := s.topics[arn]; t != nil {
		published := 0
		for _, p := range pubs {
			if p.TopicArn == arn && !p.Confirmation {
				published++
			}
		}
		ts := summaryOf(t, published)
		page.Topic = &ts
	}
	return page, nil
}
