package sqsfake

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// AddPermission and RemovePermission edit the queue's Policy attribute (SPEC.md §5.17).

// permissionActions are the actions AddPermission grants; "*" grants all.
var permissionActions = map[string]bool{
	"*": true, "SendMessage": true, "ReceiveMessage": true, "DeleteMessage": true,
	"ChangeMessageVisibility": true, "GetQueueAttributes": true, "GetQueueUrl": true,
	"ListDeadLetterSourceQueues": true, "PurgeQueue": true, "ListQueueTags": true,
}

const maxPermissionActions = 7

// policyDocument is a queue policy with its statements kept as they were written, so that a
// policy set with SetQueueAttributes survives AddPermission and RemovePermission unchanged.
type policyDocument struct {
	Version   string        `json:"Version"`
	ID        string        `json:"Id,omitempty"`
	Statement statementList `json:"Statement"`
}

// statementList is a policy's Statement member. IAM allows a single statement object in
// place of the array; it is read as a list of one so that AddPermission keeps it.
type statementList []json.RawMessage

func (l *statementList) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '{' {
		*l = statementList{json.RawMessage(bytes.Clone(b))} // Unmarshal may reuse b
		return nil
	}
	return json.Unmarshal(b, (*[]json.RawMessage)(l))
}

// permissionStatement is the statement AddPermission writes, in AWS's member order.
type permissionStatement struct {
	Sid       string `json:"Sid"`
	Effect    string `json:"Effect"`
	Principal struct {
		AWS any `json:"AWS"`
	} `json:"Principal"`
	Action   any    `json:"Action"`
	Resource string `json:"Resource"`
}

func statementSid(raw json.RawMessage) string {
	var s struct {
		Sid string `json:"Sid"`
	}
	_ = json.Unmarshal(raw, &s)
	return s.Sid
}

func (q *queue) policyDocument() policyDocument {
	doc := policyDocument{Version: "2008-10-17", ID: q.arn + "/SQSDefaultPolicy"}
	if q.cfg.policy != "" {
		_ = json.Unmarshal([]byte(q.cfg.policy), &doc)
	}
	return doc
}

// oneOrMany renders a list as AWS does in a policy: a string for one element, else an array.
func oneOrMany(xs []string) any {
	if len(xs) == 1 {
		return xs[0]
	}
	return xs
}

func validLabel(label string) bool {
	return validQueueName(label, false)
}

func (f *Fake) addPermission(a *actor, in *sqs.AddPermissionInput) (*sqs.AddPermissionOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "AddPermission")
	if err != nil {
		return nil, err
	}
	label := aws.ToString(in.Label)
	if !validLabel(label) {
		return nil, errInvalidValue(label, "Label", "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.")
	}
	if len(in.AWSAccountIds) == 0 {
		return nil, errMissingParameter("AWSAccountIds")
	}
	if len(in.Actions) == 0 {
		return nil, errMissingParameter("Actions")
	}
	if len(in.Actions) > maxPermissionActions {
		return nil, newError("OverLimit", strconv.Itoa(len(in.Actions))+" Actions were found, maximum allowed is 7.")
	}
	for _, a := range in.Actions {
		if !permissionActions[a] {
			return nil, errInvalidValue("SQS:"+a, "ActionName", "Please refer to the appropriate WSDL for a list of valid actions.")
		}
	}
	for _, id := range in.AWSAccountIds {
		if !isAccountID(id) {
			return nil, errInvalidValue(id, "AWSAccountIds", "Invalid account id.")
		}
	}
	doc := q.policyDocument()
	for _, st := range doc.Statement {
		if statementSid(st) == label {
			return nil, errInvalidValue(label, "Label", "Already exists.")
		}
	}
	st := permissionStatement{Sid: label, Effect: "Allow", Resource: q.arn}
	principals := make([]string, len(in.AWSAccountIds))
	for i, id := range in.AWSAccountIds {
		principals[i] = "arn:" + f.partition + ":iam::" + id + ":root"
	}
	st.Principal.AWS = oneOrMany(principals)
	actions := make([]string, len(in.Actions))
	for i, a := range in.Actions {
		actions[i] = "SQS:" + a
	}
	st.Action = oneOrMany(actions)
	raw, _ := json.Marshal(st)
	doc.Statement = append(doc.Statement, raw)
	text, _ := json.Marshal(doc)
	// The new document may be over a quota: OverLimit, and the policy stays as it was.
	if err := q.cfg.setPolicy(string(text)); err != nil {
		return nil, err
	}
	return &sqs.AddPermissionOutput{}, nil
}

func (f *Fake) removePermission(a *actor, in *sqs.RemovePermissionInput) (*sqs.RemovePermissionOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "RemovePermission")
	if err != nil {
		return nil, err
	}
	label := aws.ToString(in.Label)
	doc := q.policyDocument()
	for i, st := range doc.Statement {
		// A statement written without a Sid has no label; "" names none.
		if label == "" || statementSid(st) != label {
			continue
		}
		doc.Statement = append(doc.Statement[:i], doc.Statement[i+1:]...)
		text := "" // removing the last statement removes the Policy attribute
		if len(doc.Statement) > 0 {
			b, _ := json.Marshal(doc)
			text = string(b)
		}
		// The rewritten document can outgrow the size quota (json.Marshal escapes <, > and &
		// and adds a missing Id): OverLimit, and the policy stays as it was.
		if err := q.cfg.setPolicy(text); err != nil {
			return nil, err
		}
		return &sqs.RemovePermissionOutput{}, nil
	}
	return nil, errInvalidValue(label, "Label", "can't find label.")
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
