package sqsfake

import (
	"context"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Explicit zeros. The SDK's inputs hold MaxNumberOfMessages, VisibilityTimeout,
// WaitTimeSeconds and DelaySeconds as plain int32s, so in Go 0 means "not sent" and the SDK
// never sends a 0 (SPEC.md §0.1): SQS then applies the default, which is often the queue's
// own setting. Other clients — boto3, the AWS CLI, other SDKs — do send 0, and SQS applies
// the 0: a short poll on a queue that long-polls by default, a receive that leaves messages
// visible, a message without the queue's delay, and MaxNumberOfMessages 0 is out of range.
// Likewise a request without ChangeMessageVisibility's required VisibilityTimeout, which Go
// cannot write, is refused with MissingParameter.
//
// The wire door notes which of these members a request wrote and hands the note to the
// engine in the call's context; door 1 and door 2 carry none, so for them 0 stays "not sent".

// wireZeros says which int32 members a request over the wire gave explicitly as 0.
type wireZeros struct {
	maxMessages, visibility, wait bool // ReceiveMessage
	delay                         bool // SendMessage
	entryDelays                   []bool
	// noVisibility is set for a ChangeMessageVisibility request without VisibilityTimeout.
	noVisibility bool
}

// entryDelay reports whether entry i of a SendMessageBatch gave DelaySeconds as 0.
func (z *wireZeros) entryDelay(i int) bool {
	return z != nil && i < len(z.entryDelays) && z.entryDelays[i]
}

type wireZerosKey struct{}

// wireZerosOf returns the note of a call's context, or nil when it has none.
func wireZerosOf(ctx context.Context) *wireZeros {
	z, _ := ctx.Value(wireZerosKey{}).(*wireZeros)
	return z
}

// explicit unwraps an int32 member decoded into a pointer: its value, and whether it was
// sent as 0.
func explicit(p *int32) (int32, bool) {
	if p == nil {
		return 0, false
	}
	return *p, *p == 0
}

// The decoders below read a request body into the SDK's input through a struct whose
// pointer members shadow the int32 members of the embedded input (encoding/json fills the
// least nested field of a name), so that an explicit 0 is seen.

func decodeReceiveMessage(ctx context.Context, body []byte, _ *http.Request, in *sqs.ReceiveMessageInput) (context.Context, error) {
	var w struct {
		*sqs.ReceiveMessageInput
		MaxNumberOfMessages, VisibilityTimeout, WaitTimeSeconds *int32
	}
	w.ReceiveMessageInput = in
	if err := decodeInput(body, &w); err != nil {
		return nil, err
	}
	var z wireZeros
	in.MaxNumberOfMessages, z.maxMessages = explicit(w.MaxNumberOfMessages)
	in.VisibilityTimeout, z.visibility = explicit(w.VisibilityTimeout)
	in.WaitTimeSeconds, z.wait = explicit(w.WaitTimeSeconds)
	return z.into(ctx), nil
}

func decodeSendMessage(ctx context.Context, body []byte, r *http.Request, in *sqs.SendMessageInput) (context.Context, error) {
	var w struct {
		*sqs.SendMessageInput
		DelaySeconds *int32
	}
	w.SendMessageInput = in
	if err := decodeInput(body, &w); err != nil {
		return nil, err
	}
	text, err := messageText(body, false)
	if err != nil {
		return nil, err
	}
	var z wireZeros
	in.DelaySeconds, z.delay = explicit(w.DelaySeconds)
	var traced bool
	if in.MessageSystemAttributes, traced = withTraceHeader(in.MessageSystemAttributes, r); traced {
		text = text.withTraceFault(0, 1, traceHeaderFault(r))
	}
	return text.into(z.into(ctx)), nil
}

// batchEntryWire is a SendMessageBatch entry as decoded from the wire.
type batchEntryWire struct {
	types.SendMessageBatchRequestEntry
	DelaySeconds *int32
}

func decodeSendMessageBatch(ctx context.Context, body []byte, r *http.Request, in *sqs.SendMessageBatchInput) (context.Context, error) {
	var w struct {
		*sqs.SendMessageBatchInput
		Entries []batchEntryWire
	}
	w.SendMessageBatchInput = in
	if err := decodeInput(body, &w); err != nil {
		return nil, err
	}
	text, err := messageText(body, true)
	if err != nil {
		return nil, err
	}
	var z wireZeros
	if w.Entries != nil {
		in.Entries = make([]types.SendMessageBatchRequestEntry, len(w.Entries))
	}
	for i, e := range w.Entries {
		in.Entries[i] = e.SendMessageBatchRequestEntry
		var zero, traced bool
		in.Entries[i].DelaySeconds, zero = explicit(e.DelaySeconds)
		if in.Entries[i].MessageSystemAttributes, traced = withTraceHeader(in.Entries[i].MessageSystemAttributes, r); traced {
			text = text.withTraceFault(i, len(w.Entries), traceHeaderFault(r))
		}
		if zero {
			if z.entryDelays == nil {
				z.entryDelays = make([]bool, len(w.Entries))
			}
			z.entryDelays[i] = true
		}
	}
	return text.into(z.into(ctx)), nil
}

func decodeChangeMessageVisibility(ctx context.Context, body []byte, _ *http.Request, in *sqs.ChangeMessageVisibilityInput) (context.Context, error) {
	var w struct {
		*sqs.ChangeMessageVisibilityInput
		VisibilityTimeout *int32
	}
	w.ChangeMessageVisibilityInput = in
	if err := decodeInput(body, &w); err != nil {
		return nil, err
	}
	in.VisibilityTimeout, _ = explicit(w.VisibilityTimeout)
	return (&wireZeros{noVisibility: w.VisibilityTimeout == nil}).into(ctx), nil
}

// into returns ctx with the note, or ctx itself for a note that says nothing, so that most
// calls carry none.
func (z *wireZeros) into(ctx context.Context) context.Context {
	if !z.maxMessages && !z.visibility && !z.wait && !z.delay && z.entryDelays == nil && !z.noVisibility {
		return ctx
	}
	return context.WithValue(ctx, wireZerosKey{}, z)
}
