package sqsfake

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
)

// The operation table: the 23 operations by name, each with its door-1 method and its input
// type. Door 2 (client.go) and door 3 (wire_http.go) call operations through it, the fault
// injector checks the names it is given against it, and the call record numbers operations by
// it.

// operation is one SQS operation as the doors and the test aids find it by name.
type operation struct {
	// newInput returns a new, empty input of the operation: a *sqs.<Operation>Input.
	newInput func() any
	// call calls the door-1 method with in, which must be the operation's *sqs.<Operation>Input.
	call func(f *Fake, ctx context.Context, in any, optFns ...func(*sqs.Options)) (smithy.Serializable, error)
}

// defineOp builds the operation of a door-1 method.
func defineOp[In any, PIn interface {
	*In
	smithy.Serializable
}, Out smithy.Serializable](method func(*Fake, context.Context, PIn, ...func(*sqs.Options)) (Out, error)) operation {
	return operation{
		newInput: func() any { return PIn(new(In)) },
		call: func(f *Fake, ctx context.Context, params any, optFns ...func(*sqs.Options)) (smithy.Serializable, error) {
			in, ok := params.(PIn)
			if !ok {
				return nil, fmt.Errorf("sqsfake: %T is not a %T", params, in)
			}
			out, err := method(f, ctx, in, optFns...)
			if err != nil {
				return nil, err
			}
			return out, nil
		},
	}
}

// operations holds the 23 operations by name.
var operations = map[string]operation{
	"AddPermission":                defineOp((*Fake).AddPermission),
	"CancelMessageMoveTask":        defineOp((*Fake).CancelMessageMoveTask),
	"ChangeMessageVisibility":      defineOp((*Fake).ChangeMessageVisibility),
	"ChangeMessageVisibilityBatch": defineOp((*Fake).ChangeMessageVisibilityBatch),
	"CreateQueue":                  defineOp((*Fake).CreateQueue),
	"DeleteMessage":                defineOp((*Fake).DeleteMessage),
	"DeleteMessageBatch":           defineOp((*Fake).DeleteMessageBatch),
	"DeleteQueue":                  defineOp((*Fake).DeleteQueue),
	"GetQueueAttributes":           defineOp((*Fake).GetQueueAttributes),
	"GetQueueUrl":                  defineOp((*Fake).GetQueueUrl),
	"ListDeadLetterSourceQueues":   defineOp((*Fake).ListDeadLetterSourceQueues),
	"ListMessageMoveTasks":         defineOp((*Fake).ListMessageMoveTasks),
	"ListQueueTags":                defineOp((*Fake).ListQueueTags),
	"ListQueues":                   defineOp((*Fake).ListQueues),
	"PurgeQueue":                   defineOp((*Fake).PurgeQueue),
	"ReceiveMessage":               defineOp((*Fake).ReceiveMessage),
	"RemovePermission":             defineOp((*Fake).RemovePermission),
	"SendMessage":                  defineOp((*Fake).SendMessage),
	"SendMessageBatch":             defineOp((*Fake).SendMessageBatch),
	"SetQueueAttributes":           defineOp((*Fake).SetQueueAttributes),
	"StartMessageMoveTask":         defineOp((*Fake).StartMessageMoveTask),
	"TagQueue":                     defineOp((*Fake).TagQueue),
	"UntagQueue":                   defineOp((*Fake).UntagQueue),
}

// operationNames lists the operations in name order after a "" at index 0: the call record
// names an operation by its index, 0 for a name the fake does not know. A test holds it to
// the keys of operations; neither is built from the other, as the door-1 methods in
// operations record their calls by these indexes (an initialization cycle).
var operationNames = [...]string{"",
	"AddPermission", "CancelMessageMoveTask", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
	"CreateQueue", "DeleteMessage", "DeleteMessageBatch", "DeleteQueue", "GetQueueAttributes", "GetQueueUrl",
	"ListDeadLetterSourceQueues", "ListMessageMoveTasks", "ListQueueTags", "ListQueues", "PurgeQueue",
	"ReceiveMessage", "RemovePermission", "SendMessage", "SendMessageBatch", "SetQueueAttributes",
	"StartMessageMoveTask", "TagQueue", "UntagQueue",
}
