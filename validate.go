package sqsfake

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// validateInput runs the SDK's client-side required-field validation for params, a non-nil
// pointer to one of the 23 sqs.<Op>Input types, and returns nil or the smithy.InvalidParamsError
// value the real client would produce (NOT wrapped in smithy.OperationError).
//
// It reproduces the generated validateOp<Op>Input functions of service/sqs v1.53.0
// (validators.go): the same required members checked in the same order, batch entries checked in
// index order and nested as Entries[i], attribute map members nested as MessageAttributes["k"] /
// MessageSystemAttributes["k"], all built with smithy.InvalidParamsError, NewErrParamRequired and
// AddNested so Error() and every Field() are byte-identical to the SDK's. Like the SDK, a nil
// slice or map in a required member is missing, while an empty non-nil one passes.
//
// Two deliberate differences, both invisible for well-formed calls:
//   - A typed nil pointer is validated as the zero value. The generated validators return nil for
//     a nil pointer, but every client method first replaces nil params with &<Op>Input{}, so the
//     real client reports all required members missing; that is what is returned here.
//   - Map members with a missing DataType are reported in sorted key order. The SDK ranges over
//     the map, so when several members of one map are bad its error order is Go's random map
//     order; sorting keeps ours deterministic while producing the same set of lines.
//
// ListQueuesInput has no required members (the SDK registers no validator for it) and, like any
// unknown type, yields nil. The valid path does not allocate.
func validateInput(params any) error {
	var c paramCheck
	switch in := params.(type) {
	case *sqs.AddPermissionInput:
		in = orZero(in)
		c.begin("AddPermissionInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.Label == nil, "Label")
		c.require(in.AWSAccountIds == nil, "AWSAccountIds")
		c.require(in.Actions == nil, "Actions")
	case *sqs.CancelMessageMoveTaskInput:
		in = orZero(in)
		c.begin("CancelMessageMoveTaskInput")
		c.require(in.TaskHandle == nil, "TaskHandle")
	case *sqs.ChangeMessageVisibilityInput:
		in = orZero(in)
		c.begin("ChangeMessageVisibilityInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.ReceiptHandle == nil, "ReceiptHandle")
	case *sqs.ChangeMessageVisibilityBatchInput:
		in = orZero(in)
		c.begin("ChangeMessageVisibilityBatchInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		checkEntries(&c, in.Entries, "ChangeMessageVisibilityBatchRequestEntryList", checkChangeVisibilityEntry)
	case *sqs.CreateQueueInput:
		in = orZero(in)
		c.begin("CreateQueueInput")
		c.require(in.QueueName == nil, "QueueName")
	case *sqs.DeleteMessageInput:
		in = orZero(in)
		c.begin("DeleteMessageInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.ReceiptHandle == nil, "ReceiptHandle")
	case *sqs.DeleteMessageBatchInput:
		in = orZero(in)
		c.begin("DeleteMessageBatchInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		checkEntries(&c, in.Entries, "DeleteMessageBatchRequestEntryList", checkDeleteEntry)
	case *sqs.DeleteQueueInput:
		in = orZero(in)
		c.begin("DeleteQueueInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
	case *sqs.GetQueueAttributesInput:
		in = orZero(in)
		c.begin("GetQueueAttributesInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
	case *sqs.GetQueueUrlInput:
		in = orZero(in)
		c.begin("GetQueueUrlInput")
		c.require(in.QueueName == nil, "QueueName")
	case *sqs.ListDeadLetterSourceQueuesInput:
		in = orZero(in)
		c.begin("ListDeadLetterSourceQueuesInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
	case *sqs.ListMessageMoveTasksInput:
		in = orZero(in)
		c.begin("ListMessageMoveTasksInput")
		c.require(in.SourceArn == nil, "SourceArn")
	case *sqs.ListQueueTagsInput:
		in = orZero(in)
		c.begin("ListQueueTagsInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
	case *sqs.ListQueuesInput:
		// No required members: the SDK adds no validation middleware for ListQueues.
	case *sqs.PurgeQueueInput:
		in = orZero(in)
		c.begin("PurgeQueueInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
	case *sqs.ReceiveMessageInput:
		in = orZero(in)
		c.begin("ReceiveMessageInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
	case *sqs.RemovePermissionInput:
		in = orZero(in)
		c.begin("RemovePermissionInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.Label == nil, "Label")
	case *sqs.SendMessageInput:
		in = orZero(in)
		c.begin("SendMessageInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.MessageBody == nil, "MessageBody")
		checkAttributeMaps(&c, in.MessageAttributes, in.MessageSystemAttributes)
	case *sqs.SendMessageBatchInput:
		in = orZero(in)
		c.begin("SendMessageBatchInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		checkEntries(&c, in.Entries, "SendMessageBatchRequestEntryList", checkSendEntry)
	case *sqs.SetQueueAttributesInput:
		in = orZero(in)
		c.begin("SetQueueAttributesInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.Attributes == nil, "Attributes")
	case *sqs.StartMessageMoveTaskInput:
		in = orZero(in)
		c.begin("StartMessageMoveTaskInput")
		c.require(in.SourceArn == nil, "SourceArn")
	case *sqs.TagQueueInput:
		in = orZero(in)
		c.begin("TagQueueInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.Tags == nil, "Tags")
	case *sqs.UntagQueueInput:
		in = orZero(in)
		c.begin("UntagQueueInput")
		c.require(in.QueueUrl == nil, "QueueUrl")
		c.require(in.TagKeys == nil, "TagKeys")
	}
	return c.result()
}

// paramCheck collects the problems of one shape, the way each generated validator fills its
// local smithy.InvalidParamsError. The zero value collects nothing until begin names the shape.
type paramCheck struct {
	errs smithy.InvalidParamsError
}

func newParamCheck(shape string) paramCheck {
	return paramCheck{errs: smithy.InvalidParamsError{Context: shape}}
}

func (c *paramCheck) begin(shape string) { c.errs.Context = shape }

// require records field as a missing required member when missing is true.
func (c *paramCheck) require(missing bool, field string) {
	if missing {
		c.errs.Add(smithy.NewErrParamRequired(field))
	}
}

// nest adds inner's problems under path (a member name, "[i]" or `["key"]`), as AddNested does
// in the generated code; an inner check with no problems adds nothing.
func (c *paramCheck) nest(path string, inner paramCheck) {
	if inner.failed() {
		c.errs.AddNested(path, inner.errs)
	}
}

func (c *paramCheck) failed() bool { return c.errs.Len() > 0 }

// result is nil or the collected smithy.InvalidParamsError value (not a pointer), exactly what
// the generated validators return.
func (c *paramCheck) result() error {
	if !c.failed() {
		return nil
	}
	return c.errs
}

// orZero stands in for the client methods' "if params == nil { params = &<Op>Input{} }".
func orZero[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

// checkEntries mirrors the Entries member of the three batch operations: a nil slice is a missing
// required member; otherwise each entry is checked in index order and its problems nested as
// Entries[i] (via the <Entry>List shape, as in validators.go). An empty non-nil slice passes here;
// the service rejects it with EmptyBatchRequest.
func checkEntries[E any](c *paramCheck, entries []E, listShape string, checkEntry func(*E) paramCheck) {
	if entries == nil {
		c.require(true, "Entries")
		return
	}
	list := newParamCheck(listShape)
	for i := range entries {
		if entry := checkEntry(&entries[i]); entry.failed() {
			list.nest(fmt.Sprintf("[%d]", i), entry)
		}
	}
	c.nest("Entries", list)
}

func checkChangeVisibilityEntry(e *types.ChangeMessageVisibilityBatchRequestEntry) paramCheck {
	c := newParamCheck("ChangeMessageVisibilityBatchRequestEntry")
	c.require(e.Id == nil, "Id")
	c.require(e.ReceiptHandle == nil, "ReceiptHandle")
	return c
}

func checkDeleteEntry(e *types.DeleteMessageBatchRequestEntry) paramCheck {
	c := newParamCheck("DeleteMessageBatchRequestEntry")
	c.require(e.Id == nil, "Id")
	c.require(e.ReceiptHandle == nil, "ReceiptHandle")
	return c
}

func checkSendEntry(e *types.SendMessageBatchRequestEntry) paramCheck {
	c := newParamCheck("SendMessageBatchRequestEntry")
	c.require(e.Id == nil, "Id")
	c.require(e.MessageBody == nil, "MessageBody")
	checkAttributeMaps(&c, e.MessageAttributes, e.MessageSystemAttributes)
	return c
}

// checkAttributeMaps checks the two attribute maps SendMessage and each SendMessageBatch entry
// carry, message attributes first, as the generated code does.
func checkAttributeMaps(c *paramCheck, attrs map[string]types.MessageAttributeValue, sysAttrs map[string]types.MessageSystemAttributeValue) {
	checkDataTypes(c, "MessageAttributes", attrs, "MessageBodyAttributeMap", "MessageAttributeValue",
		func(v types.MessageAttributeValue) bool { return v.DataType == nil })
	checkDataTypes(c, "MessageSystemAttributes", sysAttrs, "MessageBodySystemAttributeMap", "MessageSystemAttributeValue",
		func(v types.MessageSystemAttributeValue) bool { return v.DataType == nil })
}

// checkDataTypes reports every member of m whose DataType is missing, nested as
// member["key"].DataType. A nil or empty map passes (neither map is required).
//
// Unlike the SDK, which ranges over the map and so reports several bad members in random order,
// the bad keys are reported in sorted order so the error text is deterministic. The keys are
// only collected once a bad member is seen, so a valid map costs no allocation.
func checkDataTypes[V any](c *paramCheck, member string, m map[string]V, mapShape, valueShape string, missingDataType func(V) bool) {
	var bad []string
	for k, v := range m {
		if missingDataType(v) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return
	}
	slices.Sort(bad)
	members := newParamCheck(mapShape)
	for _, k := range bad {
		value := newParamCheck(valueShape)
		value.require(true, "DataType")
		members.nest(fmt.Sprintf("[%q]", k), value)
	}
	c.nest(member, members)
}
