package sqsfake

import (
	"encoding/json"
	"strconv"
	"strings"
)

// redrivePolicy is a queue's parsed RedrivePolicy attribute (SPEC.md §8.1).
type redrivePolicy struct {
	deadLetterTargetArn string
	maxReceiveCount     int
}

// String renders the policy as GetQueueAttributes returns it: maxReceiveCount as a number.
func (p *redrivePolicy) String() string {
	b, _ := json.Marshal(struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
		MaxReceiveCount     int    `json:"maxReceiveCount"`
	}{p.deadLetterTargetArn, p.maxReceiveCount})
	return string(b)
}

// redriveResolver checks that arn names a queue that may serve as the dead-letter queue of
// the queue being configured, whose kind is fifo; it returns the reason text when not.
type redriveResolver func(arn string, fifo bool) (reason string)

func errRedrivePolicy(raw, reason string) *sqsError {
	return errInvalidValue(raw, attrRedrivePolicy, reason)
}

// parseRedrivePolicy validates a RedrivePolicy value. "" removes the policy (nil, nil).
// maxReceiveCount may be a JSON number or a string holding one, as AWS accepts both.
func parseRedrivePolicy(raw string, fifo bool, resolve redriveResolver) (*redrivePolicy, *sqsError) {
	if raw == "" {
		return nil, nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		// UNVERIFIED text: AWS rejects malformed JSON with InvalidParameterValue.
		return nil, errRedrivePolicy(raw, "Redrive policy is not a valid JSON map.")
	}
	target, ok := doc["deadLetterTargetArn"]
	if !ok {
		return nil, errRedrivePolicy(raw, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn.")
	}
	count, ok := doc["maxReceiveCount"]
	if !ok {
		return nil, errRedrivePolicy(raw, "Redrive policy does not contain mandatory attribute: maxReceiveCount.")
	}
	var p redrivePolicy
	if err := json.Unmarshal(target, &p.deadLetterTargetArn); err != nil {
		return nil, errRedrivePolicy(raw, "Dead letter target does not exist.")
	}
	text := strings.Trim(string(count), `"`)
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 || n > 1000 {
		return nil, errRedrivePolicy(raw, "Invalid value for maxReceiveCount: "+text+", valid values are from 1 to 1000 both inclusive.")
	}
	p.maxReceiveCount = n
	if resolve != nil {
		if reason := resolve(p.deadLetterTargetArn, fifo); reason != "" {
			return nil, errRedrivePolicy(raw, reason)
		}
	}
	return &p, nil
}

// Redrive permissions of a RedriveAllowPolicy.
const (
	redriveAllowAll = "allowAll"
	redriveDenyAll  = "denyAll"
	redriveByQueue  = "byQueue"
)

// redriveAllowPolicy is a dead-letter queue's parsed RedriveAllowPolicy (SPEC.md §8.1).
type redriveAllowPolicy struct {
	raw             string
	permission      string
	sourceQueueArns []string
}

// allows reports whether the queue with ARN source may name this queue as its DLQ.
func (p *redriveAllowPolicy) allows(source string) bool {
	if p == nil {
		return true
	}
	switch p.permission {
	case redriveDenyAll:
		return false
	case redriveByQueue:
		for _, a := range p.sourceQueueArns {
			if a == source {
				return true
			}
		}
		return false
	}
	return true
}

func errRedriveAllowPolicy(raw, reason string) *sqsError {
	return errInvalidValue(raw, attrRedriveAllowPolicy, reason)
}

// parseRedriveAllowPolicy validates a RedriveAllowPolicy value. "" removes it. The reasons'
// texts are unverified against AWS; they state the documented rules.
func parseRedriveAllowPolicy(raw string) (*redriveAllowPolicy, *sqsError) {
	if raw == "" {
		return nil, nil
	}
	var doc struct {
		RedrivePermission *string  `json:"redrivePermission"`
		SourceQueueArns   []string `json:"sourceQueueArns"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		return nil, errRedriveAllowPolicy(raw, "Redrive allow policy is not a valid JSON map.")
	}
	if doc.RedrivePermission == nil {
		return nil, errRedriveAllowPolicy(raw, "Redrive allow policy does not contain mandatory attribute: redrivePermission.")
	}
	p := &redriveAllowPolicy{raw: raw, permission: *doc.RedrivePermission, sourceQueueArns: doc.SourceQueueArns}
	switch p.permission {
	case redriveAllowAll, redriveDenyAll:
		if doc.SourceQueueArns != nil {
			return nil, errRedriveAllowPolicy(raw, "sourceQueueArns can be specified only when redrivePermission is byQueue.")
		}
	case redriveByQueue:
		if len(doc.SourceQueueArns) == 0 {
			return nil, errRedriveAllowPolicy(raw, "sourceQueueArns must be specified when redrivePermission is byQueue.")
		}
		if len(doc.SourceQueueArns) > 10 {
			return nil, errRedriveAllowPolicy(raw, "Up to 10 sourceQueueArns can be specified.")
		}
	default:
		return nil, errRedriveAllowPolicy(raw, "Invalid value for redrivePermission: "+p.permission+", valid values are allowAll, denyAll and byQueue.")
	}
	return p, nil
}
