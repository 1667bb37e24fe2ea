package sqsfake

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"
)

// modelMsg is a standard-queue message in the reference model: the simplest statement of
// the rules the engine's indexes implement.
type modelMsg struct {
	body     string
	seq      int
	at       time.Duration // visible when at <= now: when it became (or becomes) available
	received int
	handle   string
}

// TestStandardQueueMatchesAReferenceModel runs random sends, receives, deletes, visibility
// changes and clock moves against the fake and against a plain list that follows SPEC.md's
// rules, and requires the same deliveries, receive counts and queue counts at every step.
func TestStandardQueueMatchesAReferenceModel(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			ctx := context.Background()
			f := New()
			url := mustCreateQueue(t, f, "model", map[string]string{"VisibilityTimeout": "10"})
			var now time.Duration
			var model []*modelMsg
			seq := 0
			byHandle := map[string]*modelMsg{}
			for step := range 300 {
				switch op := r.IntN(10); {
				case op < 3: // send, sometimes delayed
					seq++
					body := strconv.Itoa(seq)
					delay := int32(0)
					if r.IntN(3) == 0 {
						delay = int32(1 + r.IntN(20))
					}
					_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: &body, DelaySeconds: delay})
					require.NoError(t, err)
					model = append(model, &modelMsg{body: body, seq: seq, at: now + time.Duration(delay)*time.Second})
				case op < 6: // receive
					max := 1 + r.IntN(10)
					vt := int32(r.IntN(3)) * 7 // 0 means the queue's 10 s
					out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: int32(max),
						VisibilityTimeout: vt, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
					require.NoError(t, err)
					visible := slices.DeleteFunc(slices.Clone(model), func(m *modelMsg) bool { return m.at > now })
					// First sent first, whenever each became visible (DESIGN.md).
					slices.SortFunc(visible, func(a, b *modelMsg) int { return cmp.Compare(a.seq, b.seq) })
					want := visible[:min(max, len(visible))]
					timeout := 10 * time.Second
					if vt != 0 {
						timeout = time.Duration(vt) * time.Second
					}
					require.Len(t, out.Messages, len(want), "step %d: receive of %d at %v", step, max, now)
					for i, m := range want {
						got := out.Messages[i]
						m.received++
						m.at = now + timeout
						m.handle = *got.ReceiptHandle
						byHandle[m.handle] = m
						require.Equal(t, m.body, *got.Body, "step %d: delivery %d", step, i)
						require.Equal(t, strconv.Itoa(m.received), got.Attributes["ApproximateReceiveCount"], "step %d", step)
					}
				case op < 7: // delete with a handle a receive returned
					if len(byHandle) == 0 {
						continue
					}
					h := randomHandle(r, byHandle)
					_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: &h})
					require.NoError(t, err)
					m := byHandle[h]
					model = slices.DeleteFunc(model, func(x *modelMsg) bool { return x == m })
					for k, v := range byHandle {
						if v == m {
							delete(byHandle, k)
						}
					}
				case op < 8: // change visibility with the latest handle of a message
					if len(byHandle) == 0 {
						continue
					}
					h := randomHandle(r, byHandle)
					m := byHandle[h]
					timeout := int32(r.IntN(3)) * 5
					_, err := f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: &h, VisibilityTimeout: timeout})
					require.NoError(t, err)
					if m.at > now { // in flight: the change applies; else a no-op
						m.at = now + time.Duration(timeout)*time.Second
					}
				default: // move the clock
					d := time.Duration(1+r.IntN(12)) * time.Second
					f.Advance(d)
					now += d
				}
				var visible, inFlight, delayed int
				for _, m := range model {
					switch {
					case m.at <= now:
						visible++
					case m.received > 0:
						inFlight++
					default:
						delayed++
					}
				}
				attrs, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{"All"}})
				require.NoError(t, err)
				require.Equal(t, []string{strconv.Itoa(visible), strconv.Itoa(inFlight), strconv.Itoa(delayed)},
					[]string{attrs.Attributes["ApproximateNumberOfMessages"], attrs.Attributes["ApproximateNumberOfMessagesNotVisible"],
						attrs.Attributes["ApproximateNumberOfMessagesDelayed"]}, "step %d: counts at %v", step, now)
			}
		})
	}
}

// randomHandle picks one of the handles deterministically.
func randomHandle(r *rand.Rand, byHandle map[string]*modelMsg) string {
	keys := make([]string, 0, len(byHandle))
	for k := range byHandle {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys[r.IntN(len(keys))]
}
