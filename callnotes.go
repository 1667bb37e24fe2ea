package sqsfake

import "context"

// What a call can say that the SDK's Go inputs cannot. The engine takes an operation's
// input as the SDK's Go type, in which some things cannot be written; a caller that is not
// the Go SDK can still say them, and the door that reads such a caller (door 3, the wire)
// notes them in the call's context for the engine. Doors 1 and 2 note nothing.
//
// Explicit members. The SDK's inputs hold MaxNumberOfMessages, VisibilityTimeout,
// WaitTimeSeconds and DelaySeconds as plain int32s, so in Go 0 means "not given" and the SDK
// never sends a 0 (SPEC.md §0.1): SQS then applies the default, which is often the queue's
// own setting. Other clients — boto3, the AWS CLI, other SDKs — do give 0, and SQS applies
// the 0: a short poll on a queue that long-polls by default, a receive that leaves messages
// visible, a message without the queue's delay, and MaxNumberOfMessages 0 is out of range.
// Likewise a ChangeMessageVisibility without its required VisibilityTimeout, which Go cannot
// write, is refused with MissingParameter.
//
// Text that is not Unicode. A Go string may hold bytes that are not UTF-8, which the SDK
// sends as U+FFFD (sanitizeBody), and cannot hold a lone UTF-16 surrogate; a request written
// by other means can hold both, and SQS refuses them as characters outside its set
// (SPEC.md §5.8, §9.2). The engine refuses such a message with the error of such a
// character: the body with InvalidMessageContents, an attribute with InvalidParameterValue,
// a batch entry in the answer's Failed list.

// explicitMembers says which int32 members of a call's input were given explicitly as 0.
type explicitMembers struct {
	maxMessages, visibility, wait bool // ReceiveMessage
	delay                         bool // SendMessage
	entryDelays                   []bool
	// noVisibility is set for a ChangeMessageVisibility without VisibilityTimeout.
	noVisibility bool
}

// entryDelay reports whether entry i of a SendMessageBatch gave DelaySeconds as 0.
func (z *explicitMembers) entryDelay(i int) bool {
	return z != nil && i < len(z.entryDelays) && z.entryDelays[i]
}

type explicitMembersKey struct{}

// explicitMembersOf returns the note of a call's context, or nil when it has none.
func explicitMembersOf(ctx context.Context) *explicitMembers {
	z, _ := ctx.Value(explicitMembersKey{}).(*explicitMembers)
	return z
}

// into returns ctx with the note, or ctx itself for a note that says nothing, so that most
// calls carry none.
func (z *explicitMembers) into(ctx context.Context) context.Context {
	if !z.maxMessages && !z.visibility && !z.wait && !z.delay && z.entryDelays == nil && !z.noVisibility {
		return ctx
	}
	return context.WithValue(ctx, explicitMembersKey{}, z)
}

// nonUnicode says which strings of the messages of a SendMessage or SendMessageBatch call
// are not Unicode text: entries[i] for entry i of a batch, entries[0] for SendMessage's one
// message.
type nonUnicode struct{ entries []*msgText }

// msgText holds the faults of one message's strings: its body, and by attribute name its
// message and system attributes'.
type msgText struct {
	body       textFault
	attrs, sys map[string]attrFaults
}

// entry returns the faults of message i, or nil when it has none.
func (t *nonUnicode) entry(i int) *msgText {
	if t == nil || i >= len(t.entries) {
		return nil
	}
	return t.entries[i]
}

type nonUnicodeKey struct{}

// nonUnicodeOf returns the note of a call's context, or nil when it has none.
func nonUnicodeOf(ctx context.Context) *nonUnicode {
	t, _ := ctx.Value(nonUnicodeKey{}).(*nonUnicode)
	return t
}

// into returns ctx with the note, or ctx itself when there is none.
func (t *nonUnicode) into(ctx context.Context) context.Context {
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, nonUnicodeKey{}, t)
}
