package snsfake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
)

// SubscribeQueue subscribes a queue of the queue fake (its name, URL or ARN) to a topic (its
// ARN, or its name in the fake's account and region) with the subscription attributes given
// (RawMessageDelivery, FilterPolicy, …; nil for none), after letting the topic send into the
// queue, as the SQS console's "Subscribe to Amazon SNS topic" does:
//
//	tp, _ := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
//	f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("eu-orders")})
//	topics.SubscribeQueue(ctx, *tp.TopicArn, "eu-orders", map[string]string{"FilterPolicy": `{"region":["eu"]}`})
//
// The policy stays the queue's own and AWS-shaped: SubscribeQueue adds to the queue's
// Policy (or writes one) the statement the console adds — Sid "topic-subscription-<topic
// ARN>", Principal {"AWS":"*"}, Action SQS:SendMessage on the queue, on condition ArnLike
// aws:SourceArn the topic — replacing an earlier statement of that Sid and keeping every
// other one. It writes it with SetQueueAttributes as the queue's owner, a call in the queue
// fake's call record, then calls Subscribe (protocol sqs, the queue's ARN, with optFns): a
// queue of another account than the subscriber's is pending until confirmed, as on AWS. If
// Subscribe fails, the queue's Policy is put back as it was.
//
// A queue or topic that does not exist is an error that wraps sqsfake.ErrNoQueue or
// ErrNoTopic and names the ones there are; other errors are the SDK-shaped errors of
// SetQueueAttributes and Subscribe. QueuePolicy gives the same permission as a whole
// policy, for a queue created with it.
func (s *Fake) SubscribeQueue(ctx context.Context, topic, queue string, attributes map[string]string, optFns ...func(*sns.Options)) (*sns.SubscribeOutput, error) {
	info, err := s.sq.Queue(queue)
	if err != nil {
		return nil, err // wraps sqsfake.ErrNoQueue, and names the queues there are
	}
	s.mu.Lock()
	t := s.topicByRefLocked(topic)
	var noTopic error
	if t == nil {
		noTopic = s.noTopicLocked(topic)
	} else {
		topic = t.arn
	}
	s.mu.Unlock()
	if noTopic != nil {
		return nil, noTopic
	}
	old := info.Attributes["Policy"]
	policy, err := withTopicStatement(old, info.Arn, topic)
	if err != nil {
		return nil, fmt.Errorf("snsfake: SubscribeQueue: the Policy of queue %s: %w", info.Name, err)
	}
	owner := sqsfake.ActAs(sqsfake.Identity{AccountID: info.AccountID, Region: info.Region})
	setPolicy := func(p string) error {
		_, err := s.sq.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(info.URL),
			Attributes: map[string]string{"Policy": p}}, owner)
		return err
	}
	if policy != old {
		if err := setPolicy(policy); err != nil {
			return nil, err
		}
	}
	out, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"),
		Endpoint: aws.String(info.Arn), Attributes: attributes, ReturnSubscriptionArn: true}, optFns...)
	if err != nil {
		if policy != old {
			_ = setPolicy(old) // nothing half-applied: the queue's Policy as it was
		}
		return nil, err
	}
	return out, nil
}

// withTopicStatement returns policy (a queue's Policy, "" for none) with the statement that
// lets the topic send into the queue, as the SQS console writes it; a statement of the same
// Sid is replaced, the others are kept in order.
func withTopicStatement(policy, queueArn, topicArn string) (string, error) {
	sid := "topic-subscription-" + topicArn
	stmt, err := json.Marshal(struct {
		Sid       string
		Effect    string
		Principal map[string]string
		Action    string
		Resource  string
		Condition map[string]map[string]string
	}{sid, "Allow", map[string]string{"AWS": "*"}, "SQS:SendMessage", queueArn,
		map[string]map[string]string{"ArnLike": {"aws:SourceArn": topicArn}}})
	if err != nil {
		return "", err
	}
	if policy == "" {
		return `{"Version":"2012-10-17","Statement":[` + string(stmt) + `]}`, nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(policy), &doc); err != nil {
		return "", err
	}
	var stmts []json.RawMessage
	if raw := bytes.TrimSpace(doc["Statement"]); len(raw) > 0 && raw[0] == '{' {
		stmts = []json.RawMessage{raw} // a single statement, not in a list
	} else if len(raw) > 0 {
		if err := json.Unmarshal(raw, &stmts); err != nil {
			return "", err
		}
	}
	var want any
	_ = json.Unmarshal(stmt, &want)
	kept := make([]json.RawMessage, 0, len(stmts)+1)
	for _, st := range stmts {
		var got map[string]any
		if json.Unmarshal(st, &got) == nil && got["Sid"] == sid {
			if len(stmts) > 0 && reflect.DeepEqual(any(got), want) {
				return policy, nil // the statement is there already
			}
			continue // replaced
		}
		kept = append(kept, st)
	}
	doc["Statement"], err = json.Marshal(append(kept, stmt))
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(doc)
	return string(out), err
}
