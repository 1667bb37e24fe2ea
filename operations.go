package sqsfake

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Door 1: the method set of *sqs.Client. Each method only translates: it gives a nil input
// the SDK's treatment (an empty input, then validation), runs the SDK's client-side checks,
// calls the engine, and shapes errors as the real client does. Inputs are read, never kept.

// invoke runs one operation through the door.
func invoke[In, Out any](f *Fake, ctx context.Context, op string, params *In, optFns []func(*sqs.Options),
	run func(*Fake, *actor, *In) (*Out, error)) (*Out, error) {
	return invokeChecked(f, ctx, op, params, optFns, func(f *Fake, in *In, c call) (*Out, error) { return run(f, c.who, in) }, nil)
}

// invokeChecked runs one operation through the door, then check, which stands for a check
// the SDK makes on an answer it received (the MD5 of message bodies). Every call, whatever
// its outcome, ends in the call record.
func invokeChecked[In, Out any](f *Fake, ctx context.Context, op string, params *In, optFns []func(*sqs.Options),
	run func(*Fake, *In, call) (*Out, error), check func(c call, in *In, out *Out) error) (*Out, error) {
	if params == nil {
		params = new(In)
	}
	c, err := f.begin(ctx, op, params, optFns)
	var out *Out
	if err == nil {
		out, err = run(f, params, c)
		switch {
		case err != nil:
			err = c.finish(ctx, err)
		case check != nil:
			if cerr := check(c, params, out); cerr != nil {
				err = c.fail(cerr)
				break
			}
			fallthrough
		default:
			err = c.end(ctx)
		}
	}
	if out != nil {
		f.returned(&c, params, out, err)
	} else {
		f.returned(&c, params, nil, err)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AddPermission adds a statement for other accounts to the queue's Policy.
func (f *Fake) AddPermission(ctx context.Context, params *sqs.AddPermissionInput, optFns ...func(*sqs.Options)) (*sqs.AddPermissionOutput, error) {
	return invoke(f, ctx, "AddPermission", params, optFns, (*Fake).addPermission)
}

// CancelMessageMoveTask cancels a running message move task.
func (f *Fake) CancelMessageMoveTask(ctx context.Context, params *sqs.CancelMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.CancelMessageMoveTaskOutput, error) {
	return invoke(f, ctx, "CancelMessageMoveTask", params, optFns, (*Fake).cancelMessageMoveTask)
}

// ChangeMessageVisibility sets how long a received message stays hidden, counted from now.
func (f *Fake) ChangeMessageVisibility(ctx context.Context, params *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	return invokeChecked(f, ctx, "ChangeMessageVisibility", params, optFns, func(f *Fake, in *sqs.ChangeMessageVisibilityInput, c call) (*sqs.ChangeMessageVisibilityOutput, error) {
		return f.changeMessageVisibility(c.who, in, explicitMembersOf(ctx), c.id)
	}, nil)
}

// ChangeMessageVisibilityBatch changes the visibility of up to 10 received messages.
func (f *Fake) ChangeMessageVisibilityBatch(ctx context.Context, params *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	return invokeChecked(f, ctx, "ChangeMessageVisibilityBatch", params, optFns, func(f *Fake, in *sqs.ChangeMessageVisibilityBatchInput, c call) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
		return f.changeMessageVisibilityBatch(c.who, in, entryFault(c.fault), c.id)
	}, nil)
}

// CreateQueue creates a queue, or returns the URL of an existing one with the same
// attributes.
func (f *Fake) CreateQueue(ctx context.Context, params *sqs.CreateQueueInput, optFns ...func(*sqs.Options)) (*sqs.CreateQueueOutput, error) {
	return invoke(f, ctx, "CreateQueue", params, optFns, (*Fake).createQueue)
}

// DeleteMessage deletes the message a receipt handle names.
func (f *Fake) DeleteMessage(ctx context.Context, params *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	return invokeChecked(f, ctx, "DeleteMessage", params, optFns, func(f *Fake, in *sqs.DeleteMessageInput, c call) (*sqs.DeleteMessageOutput, error) {
		return f.deleteMessage(c.who, in, c.id)
	}, nil)
}

// DeleteMessageBatch deletes up to 10 messages.
func (f *Fake) DeleteMessageBatch(ctx context.Context, params *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	return invokeChecked(f, ctx, "DeleteMessageBatch", params, optFns, func(f *Fake, in *sqs.DeleteMessageBatchInput, c call) (*sqs.DeleteMessageBatchOutput, error) {
		return f.deleteMessageBatch(c.who, in, entryFault(c.fault), c.id)
	}, nil)
}

// DeleteQueue deletes a queue and all its messages.
func (f *Fake) DeleteQueue(ctx context.Context, params *sqs.DeleteQueueInput, optFns ...func(*sqs.Options)) (*sqs.DeleteQueueOutput, error) {
	return invoke(f, ctx, "DeleteQueue", params, optFns, (*Fake).deleteQueue)
}

// GetQueueAttributes returns the queue attributes asked for that have a value.
func (f *Fake) GetQueueAttributes(ctx context.Context, params *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	return invoke(f, ctx, "GetQueueAttributes", params, optFns, (*Fake).getQueueAttributes)
}

// GetQueueUrl returns the URL of a queue by name.
func (f *Fake) GetQueueUrl(ctx context.Context, params *sqs.GetQueueUrlInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) {
	return invoke(f, ctx, "GetQueueUrl", params, optFns, (*Fake).getQueueURL)
}

// ListDeadLetterSourceQueues lists the queues whose RedrivePolicy names this queue.
func (f *Fake) ListDeadLetterSourceQueues(ctx context.Context, params *sqs.ListDeadLetterSourceQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListDeadLetterSourceQueuesOutput, error) {
	return invoke(f, ctx, "ListDeadLetterSourceQueues", params, optFns, (*Fake).listDeadLetterSourceQueues)
}

// ListMessageMoveTasks lists the most recent message move tasks of a source queue.
func (f *Fake) ListMessageMoveTasks(ctx context.Context, params *sqs.ListMessageMoveTasksInput, optFns ...func(*sqs.Options)) (*sqs.ListMessageMoveTasksOutput, error) {
	return invoke(f, ctx, "ListMessageMoveTasks", params, optFns, (*Fake).listMessageMoveTasks)
}

// ListQueueTags returns a queue's tags.
func (f *Fake) ListQueueTags(ctx context.Context, params *sqs.ListQueueTagsInput, optFns ...func(*sqs.Options)) (*sqs.ListQueueTagsOutput, error) {
	return invoke(f, ctx, "ListQueueTags", params, optFns, (*Fake).listQueueTags)
}

// ListQueues lists queue URLs in lexicographic order of their names.
func (f *Fake) ListQueues(ctx context.Context, params *sqs.ListQueuesInput, optFns ...func(*sqs.Options)) (*sqs.ListQueuesOutput, error) {
	return invoke(f, ctx, "ListQueues", params, optFns, (*Fake).listQueues)
}

// PurgeQueue deletes every message of a queue, at most once every 60 seconds
// (WithPurgeCooldown changes it).
func (f *Fake) PurgeQueue(ctx context.Context, params *sqs.PurgeQueueInput, optFns ...func(*sqs.Options)) (*sqs.PurgeQueueOutput, error) {
	return invoke(f, ctx, "PurgeQueue", params, optFns, (*Fake).purgeQueue)
}

// ReceiveMessage receives up to 10 messages, long-polling on the fake's clock when the wait
// time is above zero. A long poll whose context is canceled with the cause
// http.ErrServerClosed — a server shutting down — ends as a wait with nothing to deliver
// does: an empty output and no error.
func (f *Fake) ReceiveMessage(ctx context.Context, params *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	return invokeChecked(f, ctx, "ReceiveMessage", params, optFns, func(f *Fake, in *sqs.ReceiveMessageInput, c call) (*sqs.ReceiveMessageOutput, error) {
		return f.receiveMessage(ctx, c.who, in, explicitMembersOf(ctx), c.id)
	}, nil)
}

// RemovePermission removes the statement with a label from the queue's Policy.
func (f *Fake) RemovePermission(ctx context.Context, params *sqs.RemovePermissionInput, optFns ...func(*sqs.Options)) (*sqs.RemovePermissionOutput, error) {
	return invoke(f, ctx, "RemovePermission", params, optFns, (*Fake).removePermission)
}

// SendMessage sends a message.
func (f *Fake) SendMessage(ctx context.Context, params *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	return invokeChecked(f, ctx, "SendMessage", params, optFns, func(f *Fake, in *sqs.SendMessageInput, c call) (*sqs.SendMessageOutput, error) {
		return f.sendMessage(c.who, in, explicitMembersOf(ctx), nonUnicodeOf(ctx), c.id)
	}, checkSendChecksum)
}

// SendMessageBatch sends up to 10 messages; entries that fail are reported in Failed.
func (f *Fake) SendMessageBatch(ctx context.Context, params *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return invokeChecked(f, ctx, "SendMessageBatch", params, optFns, func(f *Fake, in *sqs.SendMessageBatchInput, c call) (*sqs.SendMessageBatchOutput, error) {
		return f.sendMessageBatch(c.who, in, explicitMembersOf(ctx), nonUnicodeOf(ctx), entryFault(c.fault), c.id)
	}, checkSendBatchChecksums)
}

// checkSendChecksum is the SDK's MD5 check of a SendMessage answer. It can only fail for a
// body that is not valid UTF-8 (see checksumMismatch).
func checkSendChecksum(c call, in *sqs.SendMessageInput, out *sqs.SendMessageOutput) error {
	body := aws.ToString(in.MessageBody)
	if utf8.ValidString(body) || c.checksumsDisabled() {
		return nil
	}
	if e := checksumMismatch(aws.ToString(out.MessageId), body, aws.ToString(out.MD5OfMessageBody)); e != "" {
		return fmt.Errorf("message checksum validation failed, %s", e)
	}
	return nil
}

// checkSendBatchChecksums is the SDK's MD5 check of a SendMessageBatch answer, entry by
// entry as the SDK matches them, by Id.
func checkSendBatchChecksums(c call, in *sqs.SendMessageBatchInput, out *sqs.SendMessageBatchOutput) error {
	if c.checksumsDisabled() {
		return nil
	}
	var bad []string
	for _, e := range in.Entries {
		body := aws.ToString(e.MessageBody)
		if utf8.ValidString(body) {
			continue
		}
		for _, s := range out.Successful {
			if aws.ToString(s.Id) == aws.ToString(e.Id) {
				if m := checksumMismatch(aws.ToString(s.MessageId), body, aws.ToString(s.MD5OfMessageBody)); m != "" {
					bad = append(bad, m)
				}
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("message checksum validation failed, message checksum errors\n\t%s", strings.Join(bad, "\n\t"))
	}
	return nil
}

// checksumMismatch reproduces the SDK's MD5 body check (cust_checksum_validation.go): the
// client hashes the Go string it sent, the service the text it received, in which the JSON
// encoder had replaced invalid UTF-8. It returns the SDK's description of a mismatch, or "".
func checksumMismatch(messageID, sent, serverMD5 string) string {
	got := md5Hex(sent)
	if got == serverMD5 {
		return ""
	}
	prefix := "message"
	if messageID != "" {
		prefix += " " + messageID
	}
	return prefix + " has invalid checksum, expected MD5 checksum " + serverMD5 + ", got " + got
}

// SetQueueAttributes changes queue attributes; nothing changes when one is invalid.
func (f *Fake) SetQueueAttributes(ctx context.Context, params *sqs.SetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.SetQueueAttributesOutput, error) {
	return invoke(f, ctx, "SetQueueAttributes", params, optFns, (*Fake).setQueueAttributes)
}

// StartMessageMoveTask starts moving messages out of a dead-letter queue.
func (f *Fake) StartMessageMoveTask(ctx context.Context, params *sqs.StartMessageMoveTaskInput, optFns ...func(*sqs.Options)) (*sqs.StartMessageMoveTaskOutput, error) {
	return invoke(f, ctx, "StartMessageMoveTask", params, optFns, (*Fake).startMessageMoveTask)
}

// TagQueue adds or overwrites queue tags.
func (f *Fake) TagQueue(ctx context.Context, params *sqs.TagQueueInput, optFns ...func(*sqs.Options)) (*sqs.TagQueueOutput, error) {
	return invoke(f, ctx, "TagQueue", params, optFns, (*Fake).tagQueue)
}

// UntagQueue removes queue tags.
func (f *Fake) UntagQueue(ctx context.Context, params *sqs.UntagQueueInput, optFns ...func(*sqs.Options)) (*sqs.UntagQueueOutput, error) {
	return invoke(f, ctx, "UntagQueue", params, optFns, (*Fake).untagQueue)
}
