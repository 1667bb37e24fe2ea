package sqsfake

import (
	"context"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Explicit zeros on the wire. A request over the wire can give MaxNumberOfMessages,
// VisibilityTimeout, WaitTimeSeconds or DelaySeconds as 0, or leave out ChangeMessageVisibility's
// VisibilityTimeout, which the SDK's Go inputs cannot express; the decoders below note it for
// the engine in its own terms, explicitMembers (callnotes.go), in the call's context.

// explicitInt32 unwraps an int32 member decoded into a pointer: its value, and whether it was
// sent as 0.
func explicitInt32(p *int32) (int32, bool) {
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
	var z explicitMembers
	in.MaxNumberOfMessages, z.maxMessages = explicitInt32(w.MaxNumberOfMessages)
	in.VisibilityTimeout, z.visibility = explicitInt32(w.VisibilityTimeout)
	in.WaitTimeSeconds, z.wait = explicitInt32(w.WaitTimeSeconds)
	return z.into(ctx), nil
}

func decodeSendMessage(ctx context.Context, body []byte, r *http.Request, in *sqs.SendMessageInput) (context.Context, error) {
	var z explicitMembers
	if !decodePlainSendMessage(body, in) {
		var w struct {
			*sqs.SendMessageInput
			DelaySeconds *int32
		}
		w.SendMessageInput = in
		if err := decodeInput(body, &w); err != nil {
			return nil, err
		}
		in.DelaySeconds, z.delay = explicitInt32(w.DelaySeconds)
	}
	text, err := messageText(body, false)
	if err != nil {
		return nil, err
	}
	var traced bool
	if in.MessageSystemAttributes, traced = withTraceHeader(in.MessageSystemAttributes, r); traced {
		text = withTraceFault(text, 0, 1, traceHeaderFault(r))
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
	var z explicitMembers
	if w.Entries != nil {
		in.Entries = make([]types.SendMessageBatchRequestEntry, len(w.Entries))
	}
	for i, e := range w.Entries {
		in.Entries[i] = e.SendMessageBatchRequestEntry
		var zero, traced bool
		in.Entries[i].DelaySeconds, zero = explicitInt32(e.DelaySeconds)
		if in.Entries[i].MessageSystemAttributes, traced = withTraceHeader(in.Entries[i].MessageSystemAttributes, r); traced {
			text = withTraceFault(text, i, len(w.Entries), traceHeaderFault(r))
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
	in.VisibilityTimeout, _ = explicitInt32(w.VisibilityTimeout)
	return (&explicitMembers{noVisibility: w.VisibilityTimeout == nil}).into(ctx), nil
}
