package sqsfake

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/require"
)

// fifoModelMsg is a FIFO message in the reference model.
type fifoModelMsg struct {
	body, group string
	seq         int
	at          time.Duration // visible when at <= now
	stamp       int           // when it was sent, last handed out or released: ties in group order
	received    int
	handle      string // of its latest receive
}

// TestFifoQueueMatchesAReferenceModel runs random sends to a few groups, receives, deletes,
// visibility changes and clock moves against the fake and against a plain list that applies
// SPEC.md §7's rules directly — per group the leading run of visible messages from the head,
// groups in the order their head became available, ties in the order messages were sent or
// handed out — and requires the same deliveries, errors and counts at every step.
func TestFifoQueueMatchesAReferenceModel(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			ctx := context.Background()
			f := New()
			url := mustCreateQueue(t, f, "model.fifo", map[string]string{"FifoQueue": "true", "VisibilityTimeout": "10"})
			var now time.Duration
			var model []*fifoModelMsg
			seq, stamp := 0, 0
			next := func() int { stamp++; return stamp }
			var handles []string
			owner := map[string]*fifoModelMsg{}
			alive := func(m *fifoModelMsg) bool { return slices.Contains(model, m) }
			for step := range 300 {
				switch op := r.IntN(10); {
				case op < 3: // send to one of four groups
					seq++
					body, group := strconv.Itoa(seq), fmt.Sprint("g", r.IntN(4))
					_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: &body,
						MessageGroupId: &group, MessageDeduplicationId: &body})
					require.NoError(t, err)
					model = append(model, &fifoModelMsg{body: body, group: group, seq: seq, at: now, stamp: next()})
				case op < 6: // receive
					max := 1 + r.IntN(10)
					vt := int32(r.IntN(3)) * 7
					out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: int32(max),
						VisibilityTimeout: vt, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
					require.NoError(t, err)
					timeout := 10 * time.Second
					if vt != 0 {
						timeout = time.Duration(vt) * time.Second
					}
					// Heads of receivable groups, in head-availability order.
					groups := map[string][]*fifoModelMsg{}
					for _, m := range model {
						groups[m.group] = append(groups[m.group], m)
					}
					var heads []*fifoModelMsg
					for _, ms := range groups {
						if ms[0].at <= now {
							heads = append(heads, ms[0])
						}
					}
					slices.SortFunc(heads, func(a, b *fifoModelMsg) int {
						return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.stamp, b.stamp))
					})
					var want []*fifoModelMsg
					for _, h := range heads {
						for _, m := range groups[h.group] {
							if len(want) == max || m.at > now {
								break
							}
							want = append(want, m)
						}
					}
					require.Len(t, out.Messages, len(want), "step %d: receive of %d at %v", step, max, now)
					for i, m := range want {
						got := out.Messages[i]
						require.Equal(t, m.body, *got.Body, "step %d: delivery %d", step, i)
						m.received++
						m.at = now + timeout
						m.stamp = next()
						m.handle = *got.ReceiptHandle
						handles = append(handles, m.handle)
						owner[m.handle] = m
						require.Equal(t, strconv.Itoa(m.received), got.Attributes["ApproximateReceiveCount"], "step %d", step)
					}
				case op < 8: // delete or change visibility with a handle ever returned
					if len(handles) == 0 {
						continue
					}
					h := handles[r.IntN(len(handles))]
					m := owner[h]
					current := alive(m) && m.handle == h && m.at > now
					var err error
					timeout := int32(r.IntN(3)) * 5
					deleting := op == 6
					if deleting {
						_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: aws.String(h)})
					} else {
						_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: aws.String(h), VisibilityTimeout: timeout})
					}
					switch {
					case !alive(m) && deleting:
						require.NoError(t, err, "step %d: deleting a deleted message", step)
					case !alive(m):
						requireCode(t, err, "InvalidParameterValue", "step %d: changing a deleted message", step)
					case !current:
						requireCode(t, err, "InvalidParameterValue", "step %d: an expired handle", step)
					case deleting:
						require.NoError(t, err, "step %d", step)
						model = slices.DeleteFunc(model, func(x *fifoModelMsg) bool { return x == m })
					default:
						require.NoError(t, err, "step %d", step)
						m.at = now + time.Duration(timeout)*time.Second
						if timeout == 0 {
							m.stamp = next()
						}
					}
				default: // move the clock
					d := time.Duration(1+r.IntN(12)) * time.Second
					f.Advance(d)
					now += d
				}
				inFlight := 0
				for _, m := range model {
					if m.at > now {
						inFlight++ // no delays here: anything not visible is in flight
					}
				}
				attrs, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{"All"}})
				require.NoError(t, err)
				require.Equal(t, []string{strconv.Itoa(len(model) - inFlight), strconv.Itoa(inFlight)},
					[]string{attrs.Attributes["ApproximateNumberOfMessages"], attrs.Attributes["ApproximateNumberOfMessagesNotVisible"]},
					"step %d: counts at %v", step, now)
			}
		})
	}
}

func requireCode(t *testing.T, err error, code string, msgAndArgs ...any) {
	t.Helper()
	var api smithy.APIError
	require.True(t, errors.As(err, &api), msgAndArgs...)
	require.Equal(t, code, api.ErrorCode(), msgAndArgs...)
}
